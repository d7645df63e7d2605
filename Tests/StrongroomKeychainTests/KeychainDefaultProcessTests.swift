// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomKeychain
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Keychain.default` itself, as SwiftSecurity's users call it, in a child process of its own (an exit test), so
/// that the environment it reads can be set without touching the tests that run beside it.
@Suite struct KeychainDefaultProcessTests {
    @Test(
        "Keychain.default: the file at $STRONGROOM_KEYCHAIN, made 0600, reopened with the passphrase; a wrong one fails"
    )
    func defaultKeychain() async {
        await #expect(processExitsWith: .success) {
            let folder = FileManager.default.temporaryDirectory.appending(
                path: "strongroom-default-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appending(path: "nested/keychain")
            setenv("STRONGROOM_KEYCHAIN", file.path, 1)
            setenv("STRONGROOM_KEYCHAIN_PASSPHRASE", "the default passphrase", 1)
            unsetenv("STRONGROOM_KEYCHAIN_PASSPHRASE_FILE")
            guard Keychain.defaultURL == file else { exit(10) }
            try Keychain.default.store("v1", query: .credential(for: "alice", service: "default-test"))
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            guard mode == 0o600 else { exit(11) }
            guard
                try Keychain.default.retrieve(.credential(for: "alice", service: "default-test"), as: String.self)
                    == "v1"
            else { exit(12) }
            setenv("STRONGROOM_KEYCHAIN_PASSPHRASE", "another passphrase", 1)
            do {
                _ = try Keychain.default
                exit(13)
            } catch let error as KeychainError {
                guard error.code == .wrongPassphrase else { exit(14) }
            }
            // No passphrase anywhere and no terminal: a clear error, not a prompt.
            unsetenv("STRONGROOM_KEYCHAIN_PASSPHRASE")
            do {
                _ = try Keychain.default
                exit(15)
            } catch let error as KeychainError {
                guard error.code == .invalidParameters || error.code == .wrongPassphrase else { exit(16) }
            }
        }
    }
}
