// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomKeychain
import StrongroomTesting
import Testing

/// A full disk during keychain stores (issue 45, item 5): each store that cannot be written fails with a typed
/// error and changes nothing; once space returns the file opens and holds every acknowledged item.
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a small file system needs root (CI has it)"))
struct KeychainDiskFullTests {
    @Test("stores on a full disk fail with io and lose nothing; after space returns every acknowledged item reads back")
    func diskFull() async throws {
        try await SmallFileSystem.with(bytes: 1 << 20) { mount in
            let url = mount.appending(path: "full.keychain")
            let keychain = Keychain(
                backend: try EncryptedFileBackend.create(
                    at: url,
                    passphrase: testPassphrase,
                    parameters: testParameters
                )
            )
            var acknowledged: [String] = []
            for number in 0..<5 {
                try keychain.store("value-\(number)", query: .credential(for: "item-\(number)"))
                acknowledged.append("item-\(number)")
            }
            SmallFileSystem.fill(mount)
            var refused = 0
            for number in 5..<10 {
                do {
                    try keychain.store("value-\(number)", query: .credential(for: "item-\(number)"))
                    acknowledged.append("item-\(number)")
                } catch let error as KeychainError {
                    #expect(error.code == .io, "\(error)")
                    refused += 1
                }
            }
            #expect(refused > 0, "the disk was full")
            try FileManager.default.removeItem(at: mount.appending(path: "filler"))

            let reopened = Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: testPassphrase))
            for name in acknowledged {
                let value = try reopened.retrieve(.credential(for: name), as: String.self)
                #expect(value == "value-\(name.dropFirst("item-".count))", "\(name)")
            }
            try reopened.store("after", query: .credential(for: "after"))
            #expect(try reopened.retrieve(.credential(for: "after"), as: String.self) == "after")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: mount.path).filter {
                $0 != "full.keychain"
            }
            #expect(leftovers.allSatisfy { $0.hasSuffix(".lock") }, "\(leftovers)")
        }
    }
}
