// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing

/// Faults of the encrypted-file backend: each is a typed error or a clean outcome, and no other item is lost.
@Suite struct EncryptedFileFaultTests {
    /// A keychain file with three items; `body` gets its URL.
    private func withFile(_ body: (URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appending(path: "faults.keychain")
            let keychain = Keychain(
                backend: try EncryptedFileBackend.create(
                    at: url,
                    passphrase: testPassphrase,
                    parameters: testParameters
                )
            )
            for name in ["one", "two", "three"] { try keychain.store("secret-\(name)", query: .credential(for: name)) }
            try await body(url)
            // Whatever the fault did, the file never shows what was stored.
            if FileManager.default.fileExists(atPath: url.path) {
                try expectNoPlaintext(
                    in: url,
                    ["secret-one", "secret-two", "secret-three", "value-", "after"].map { Data($0.utf8) }
                )
            }
        }
    }

    private func reopen(_ url: URL) throws -> Keychain {
        Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: testPassphrase))
    }

    private func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private func write(_ object: [String: Any], to url: URL) throws {
        try JSONSerialization.data(withJSONObject: object).write(to: url)
    }

    @Test("a wrong passphrase is wrongPassphrase; the right one still opens; the file is mode 0600")
    func wrongPassphrase() async throws {
        try await withFile { url in
            #expect(throws: KeychainError(.wrongPassphrase, "")) {
                _ = try EncryptedFileBackend.open(at: url, passphrase: "guess")
            }
            #expect(try reopen(url).retrieve(.credential(for: "two"), as: String.self) == "secret-two")
            let convenience = try Keychain.encryptedFile(at: url, passphrase: testPassphrase)
            #expect(try convenience.retrieve(.credential(for: "one"), as: String.self) == "secret-one")
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
            let locked = Keychain(backend: try EncryptedFileBackend.open(at: url))
            #expect(throws: KeychainError(.locked, "")) {
                _ = try locked.retrieve(.credential(for: "one"), as: String.self)
            }
        }
    }

    @Test("the agent's unlock key: taken with the passphrase, opens a fresh handle without it, refused elsewhere")
    func unlockKey() async throws {
        try await withFile { url in
            let key = try EncryptedFileBackend.open(at: url).unlockKey(passphrase: testPassphrase)
            #expect(key.dataKey.count == 32)
            #expect(throws: KeychainError(.wrongPassphrase, "")) {
                _ = try EncryptedFileBackend.open(at: url).unlockKey(passphrase: "guess")
            }
            let fresh = try EncryptedFileBackend.open(at: url)
            try fresh.unlock(with: key)
            #expect(try Keychain(backend: fresh).retrieve(.credential(for: "one"), as: String.self) == "secret-one")
            // Another keychain's store ID, or a key of the wrong size: refused before anything is derived.
            let other = KeychainUnlockKey(storeID: "another-store", dataKey: key.dataKey)
            #expect(throws: KeychainError(.wrongPassphrase, "")) {
                try EncryptedFileBackend.open(at: url).unlock(with: other)
            }
            let short = KeychainUnlockKey(storeID: key.storeID, dataKey: SecureBytes(copying: [1, 2, 3]))
            #expect(throws: KeychainError(.wrongPassphrase, "")) {
                try EncryptedFileBackend.open(at: url).unlock(with: short)
            }
        }
    }

    @Test("a file readable by others is refused")
    func permissions() async throws {
        try await withFile { url in
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
            #expect(throws: KeychainError(.io, "")) { _ = try EncryptedFileBackend.open(at: url) }
        }
    }

    @Test("a truncated file is corrupted, never a partial keychain")
    func truncated() async throws {
        try await withFile { url in
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
            #expect(throws: KeychainError(.corrupted, "")) { _ = try EncryptedFileBackend.open(at: url) }
        }
    }

    @Test(
        "numbers in the file are range-checked: a generation of Int64.max or a negative one is corrupted, never a trap",
        arguments: [Int64.max, -1, 0, (Int64(1) << 53) + 1]
    )
    func generationOutOfRange(generation: Int64) async throws {
        try await withFile { url in
            var object = try json(url)
            object["generation"] = NSNumber(value: generation)
            try write(object, to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            #expect(throws: KeychainError(.corrupted, "")) {
                let keychain = try reopen(url)
                try keychain.store("after", query: .credential(for: "four"))
            }
        }
    }

    @Test("a flipped byte in one item is tampered for that item only; the others still open")
    func tamperedItem() async throws {
        try await withFile { url in
            var object = try json(url)
            var items = try #require(object["items"] as? [[String: Any]])
            // Find item "two" by trying each: tamper the first and see which one fails.
            let text = try #require(items[0]["secret"] as? String)
            var secret = try #require(Data(base64Encoded: text))
            secret[secret.count - 1] ^= 0x01
            items[0]["secret"] = secret.base64EncodedString()
            object["items"] = items
            try write(object, to: url)
            let keychain = try reopen(url)
            var failures = 0
            for name in ["one", "two", "three"] {
                do throws(KeychainError) {
                    #expect(try keychain.retrieve(.credential(for: name), as: String.self) == "secret-\(name)")
                } catch {
                    #expect(error.code == .tampered)
                    failures += 1
                }
            }
            #expect(failures == 1)
        }
    }

    @Test("an item's sealed value moved under another identity, or from another store, is tampered")
    func sealedUnderAnotherIdentity() async throws {
        try await withFile { url in
            var object = try json(url)
            var items = try #require(object["items"] as? [[String: Any]])
            items[1]["secret"] = items[0]["secret"]
            items[1]["meta"] = items[0]["meta"]
            object["items"] = items
            try write(object, to: url)
            let keychain = try reopen(url)
            let outcomes = ["one", "two", "three"].map { name in
                Result { () throws(KeychainError) -> String? in
                    try keychain.retrieve(.credential(for: name), as: String.self)
                }
            }
            #expect(outcomes.filter { if case .failure(let e) = $0 { e.code == .tampered } else { false } }.count == 1)
            #expect(outcomes.filter { if case .success(let v) = $0 { v != nil } else { false } }.count == 2)
        }
        try await withTemporaryDirectory { directory in
            let first = directory.appending(path: "a.keychain")
            let second = directory.appending(path: "b.keychain")
            for url in [first, second] {
                let keychain = Keychain(
                    backend: try EncryptedFileBackend.create(
                        at: url,
                        passphrase: testPassphrase,
                        parameters: testParameters
                    )
                )
                try keychain.store("in-\(url.lastPathComponent)", query: .credential(for: "same"))
            }
            // Graft b's item into a: the IDs differ (another index key), and the AAD names b's store.
            var a = try json(first)
            let b = try json(second)
            var items = try #require(a["items"] as? [[String: Any]])
            let foreign = try #require((b["items"] as? [[String: Any]])?.first)
            items[0]["secret"] = foreign["secret"]
            a["items"] = items
            try write(a, to: first)
            #expect(throws: KeychainError(.tampered, "")) {
                _ = try reopen(first).retrieve(.credential(for: "same"), as: String.self)
            }
        }
    }

    @Test("KDF parameters above the cap are refused before any work")
    func cappedParameters() async throws {
        try await withFile { url in
            var object = try json(url)
            var slots = try #require(object["slots"] as? [[String: Any]])
            var kdf = try #require(slots[0]["kdf"] as? [String: Any])
            kdf["memory_bytes"] = 64 << 30
            slots[0]["kdf"] = kdf
            object["slots"] = slots
            try write(object, to: url)
            #expect(throws: KeychainError(.invalidParameters, "")) { _ = try reopen(url) }
        }
    }

    @Test("changing the passphrase re-wraps the key only: items stay byte for byte; old passphrase refused")
    func changePassphrase() async throws {
        try await withFile { url in
            let before = try #require(try json(url)["items"] as? [[String: String]])
            let backend = try EncryptedFileBackend.open(at: url)
            #expect(throws: KeychainError(.wrongPassphrase, "")) {
                try backend.changePassphrase(from: "nope", to: "x", parameters: testParameters)
            }
            try backend.changePassphrase(from: testPassphrase, to: "new passphrase", parameters: testParameters)
            #expect(try json(url)["items"] as? [[String: String]] == before)
            #expect(throws: KeychainError(.wrongPassphrase, "")) { _ = try reopen(url) }
            let keychain = Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: "new passphrase"))
            #expect(try keychain.retrieve(.credential(for: "three"), as: String.self) == "secret-three")

            try (keychain.backend as? EncryptedFileBackend)?.addPassphrase(
                "recovery code",
                authorizedBy: "new passphrase",
                parameters: testParameters
            )
            let recovered = Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: "recovery code"))
            #expect(try recovered.retrieve(.credential(for: "one"), as: String.self) == "secret-one")
        }
    }

    @Test("two writers at once (separate handles, as two processes): every item lands")
    func concurrentWriters() async throws {
        try await withFile { url in
            let first = try reopen(url)
            let second = try reopen(url)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let keychain = index.isMultiple(of: 2) ? first : second
                    group.addTask { try keychain.store("value-\(index)", query: .credential(for: "item-\(index)")) }
                }
                try await group.waitForAll()
            }
            let check = try reopen(url)
            #expect(try check.items().count == 43)
            for index in 0..<40 {
                #expect(try check.retrieve(.credential(for: "item-\(index)"), as: String.self) == "value-\(index)")
            }
        }
    }

    @Test("a crash between write and rename leaves the old file and a stray temporary file: nothing is lost")
    func crashBeforeRename() async throws {
        try await withFile { url in
            let stray = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).crash.tmp")
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(100).write(to: stray)  // what a crash mid-write leaves behind
            let keychain = try reopen(url)
            for name in ["one", "two", "three"] {
                #expect(try keychain.retrieve(.credential(for: name), as: String.self) == "secret-\(name)")
            }
            try keychain.store("after", query: .credential(for: "four"))
            #expect(try reopen(url).items().count == 4)
        }
    }
}
