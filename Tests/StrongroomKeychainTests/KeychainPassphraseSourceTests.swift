// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomTesting
import Testing

/// A missing passphrase is told in the words of the sources the app configured, not the CLI's variable.
@Suite struct KeychainPassphraseSourceTests {
    @Test("no passphrase from an app's own sources: the error names them")
    func namesTheAppsSources() async throws {
        try await withTemporaryDirectory { directory in
            let variable = "MYAPP_PASSPHRASE_\(UUID().uuidString.prefix(8))"
            let file = directory.appending(path: "absent-passphrase")
            let error = #expect(throws: KeychainError.self) {
                try Keychain.opening(
                    directory.appending(path: "keychain"),
                    passphrase: [.environment(variable), .file(file)]
                )
            }
            #expect(error?.message.contains("set \(variable)") == true, "\(String(describing: error))")
            #expect(error?.message.contains(file.path) == true, "\(String(describing: error))")
            #expect(error?.message.contains("STRONGROOM") == false, "\(String(describing: error))")
        }
    }
}
