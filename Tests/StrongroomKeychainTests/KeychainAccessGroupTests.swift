// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomTesting
import Testing

/// Access groups on Linux: one encrypted keychain file per group with its own passphrase, shared by the group's
/// apps and apart from each app's own keychain.
@Suite struct KeychainAccessGroupTests {
    @Test("two apps of a group share its items; an app's own keychain and another group see none of them")
    func shared() async throws {
        try await withTemporaryDirectory { directory in
            let groups = directory.appending(path: "groups")
            let secret: [Keychain.PassphraseSource] = [.value("the group's passphrase")]
            // Two apps open the group, each with its own Keychain instance, as two processes would.
            let mail = try Keychain.accessGroup("com.example.shared", passphrase: secret, directory: groups)
            let calendar = try Keychain.accessGroup("com.example.shared", passphrase: secret, directory: groups)
            try mail.store("token-123", query: .credential(for: "sync", service: "example"))
            #expect(try calendar.retrieve(.credential(for: "sync", service: "example"), as: String.self) == "token-123")

            let own = try Keychain.opening(directory.appending(path: "mail/keychain"), passphrase: [.value("mail")])
            #expect(try own.retrieve(.credential(for: "sync", service: "example"), as: String.self) == nil)
            let other = try Keychain.accessGroup("com.example.other", passphrase: secret, directory: groups)
            #expect(try other.retrieve(.credential(for: "sync", service: "example"), as: String.self) == nil)

            // Without the group's passphrase the file does not open; the file holds no plaintext.
            let wrong = #expect(throws: KeychainError.self) {
                try Keychain.accessGroup("com.example.shared", passphrase: [.value("guess")], directory: groups)
            }
            #expect(wrong?.code == .wrongPassphrase)
            let bytes = try Data(contentsOf: groups.appending(path: "com.example.shared.keychain"))
            #expect(bytes.range(of: Data("token-123".utf8)) == nil)
            let mode =
                try FileManager.default.attributesOfItem(
                    atPath: groups.appending(path: "com.example.shared.keychain").path
                )[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("a group name that could name another file is refused", arguments: ["", "../x", "a/b", ".hidden", "a b"])
    func names(_ name: String) throws {
        let error = #expect(throws: KeychainError.self) {
            try Keychain.accessGroup(name, passphrase: [.value("p")], directory: URL(fileURLWithPath: "/nonexistent"))
        }
        #expect(error?.code == .invalidParameters)
    }
}
