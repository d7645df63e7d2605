// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomKeychain
import StrongroomTesting
import StrongroomWire
import Testing

/// The keychain provider: a random data key wrapped under Argon2id(password) with an AEAD in a real encrypted-file
/// keychain; wrong passwords are typed; changing the password re-wraps without touching the datastore.
@Suite struct KeychainKeyProviderTests {
    static let cost = Argon2id.Parameters.minimum

    static func keychain(_ directory: URL) throws -> Keychain {
        try Keychain.encryptedFile(
            at: directory.appending(path: "keychain"),
            passphrase: "keychain pass",
            parameters: cost
        )
    }

    @Test("the first open stores a wrapped key; the password reopens it; a wrong one is wrongPassword")
    func lifecycle() async throws {
        try await withTemporaryDirectory { directory in
            let keychain = try Self.keychain(directory)
            let manager = try DatastoreManager(directory: directory.appending(path: "stores"))
            let provider = KeychainKeyProvider(
                password: "correct horse",
                identifier: "notes",
                keychain: keychain,
                parameters: Self.cost
            )
            let store = try await manager.datastore(named: "notes", keyProvider: provider)
            try await store.createDocument(id: Canary.docID, body: Canary.body)
            await store.close()
            #expect(try keychain.info(for: .credential(for: "notes", service: KeychainKeyProvider.service)) != nil)

            let reopened = try await manager.datastore(named: "notes", keyProvider: provider)
            #expect(try await reopened.document(id: Canary.docID).body == Canary.body)
            await reopened.close()

            let wrong = KeychainKeyProvider(
                password: "wrong",
                identifier: "notes",
                keychain: keychain,
                parameters: Self.cost
            )
            let error = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "notes", keyProvider: wrong)
            }
            #expect(error?.code == .wrongPassword)
            // Another identifier is another key: it does not open this datastore.
            let other = KeychainKeyProvider(
                password: "correct horse",
                identifier: "other",
                keychain: keychain,
                parameters: Self.cost
            )
            let otherError = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "notes", keyProvider: other)
            }
            #expect(otherError?.code == .wrongKey)

            let findings = try PlaintextScan.scan(directory, for: Canary.all + ["correct horse"])
            #expect(findings.isEmpty, "\(findings)")
        }
    }

    @Test("changing the password re-wraps the data key; the datastore file is not touched")
    func changePassword() async throws {
        try await withTemporaryDirectory { directory in
            let keychain = try Self.keychain(directory)
            let manager = try DatastoreManager(directory: directory.appending(path: "stores"))
            let old = KeychainKeyProvider(password: "old", identifier: "db", keychain: keychain, parameters: Self.cost)
            let store = try await manager.datastore(named: "db", keyProvider: old)
            try await store.createDocument(id: "kept", body: ["v": .number(1)])
            await store.close()
            let file = directory.appending(path: "stores/db/db.sqlite")
            let before = try Data(contentsOf: file)

            try await old.changePassword(to: "new")
            #expect(try Data(contentsOf: file) == before)
            let new = KeychainKeyProvider(password: "new", identifier: "db", keychain: keychain, parameters: Self.cost)
            let reopened = try await manager.datastore(named: "db", keyProvider: new)
            #expect(try await reopened.document(id: "kept")["v"] == .number(1))
            await reopened.close()
            let error = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "db", keyProvider: old)
            }
            #expect(error?.code == .wrongPassword)
            let again = await #expect(throws: DatastoreError.self) { try await old.changePassword(to: "x") }
            #expect(again?.code == .wrongPassword)
            let none = KeychainKeyProvider(
                password: "p",
                identifier: "absent",
                keychain: keychain,
                parameters: Self.cost
            )
            let missing = await #expect(throws: DatastoreError.self) { try await none.changePassword(to: "x") }
            #expect(missing?.code == .notFound)
        }
    }

    @Test("a tampered record is refused before any costly work: out-of-range cost, unknown version, altered bytes")
    func tamperedRecord() async throws {
        try await withTemporaryDirectory { directory in
            let keychain = try Self.keychain(directory)
            let provider = KeychainKeyProvider(
                password: "pw",
                identifier: "t",
                keychain: keychain,
                parameters: Self.cost
            )
            _ = try await provider.encryptionKey()
            let query = ItemQuery<GenericPassword>.credential(for: "t", service: KeychainKeyProvider.service)
            let original = try #require(try keychain.retrieve(query, as: Data.self))
            let record = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
            let edits: [(String, Any, DatastoreError.Code)] = [
                ("memory_bytes", 1 << 40, .storage),
                ("iterations", 1_000_000, .storage),
                ("version", 2, .storage),
                ("sealed", String((record["sealed"] as! String).reversed()), .wrongPassword),
            ]
            for (field, value, code) in edits {
                var edited = record
                edited[field] = value
                try keychain.store(try JSONSerialization.data(withJSONObject: edited), query: query, replacing: true)
                let error = await #expect(throws: DatastoreError.self) { _ = try await provider.encryptionKey() }
                #expect(error?.code == code, "\(field)")
            }
        }
    }

    @Test(
        "without a password the key is a keychain item of its own: reopens, never shadows a wrapped key, has no password"
    )
    func keychainOnly() async throws {
        try await withTemporaryDirectory { directory in
            let keychain = try Self.keychain(directory)
            let manager = try DatastoreManager(directory: directory.appending(path: "stores"))
            let provider = KeychainKeyProvider(identifier: "notes", keychain: keychain)
            let store = try await manager.datastore(named: "notes", keyProvider: provider)
            try await store.createDocument(id: Canary.docID, body: Canary.body)
            await store.close()
            let item = ItemQuery<GenericPassword>.credential(
                for: "notes",
                service: KeychainKeyProvider.keychainOnlyService
            )
            #expect(try keychain.retrieve(item, as: SecureBytes.self)?.count == 32)
            #expect(try keychain.info(for: .credential(for: "notes", service: KeychainKeyProvider.service)) == nil)

            // Reopened through the same keychain file opened again (as a later process would).
            let again = try Keychain.encryptedFile(
                at: directory.appending(path: "keychain"),
                passphrase: "keychain pass",
                parameters: Self.cost
            )
            let reopened = try await manager.datastore(
                named: "notes",
                keyProvider: KeychainKeyProvider(identifier: "notes", keychain: again)
            )
            #expect(try await reopened.document(id: Canary.docID).body == Canary.body)
            await reopened.close()
            await #expect(throws: DatastoreError.self) { try await provider.changePassword(to: "anything") }

            // A datastore whose key is wrapped under a password is refused, not given a new key.
            let wrapped = KeychainKeyProvider(
                password: "pw",
                identifier: "diary",
                keychain: keychain,
                parameters: Self.cost
            )
            await (try await manager.datastore(named: "diary", keyProvider: wrapped)).close()
            let error = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(
                    named: "diary",
                    keyProvider: KeychainKeyProvider(identifier: "diary", keychain: keychain)
                )
            }
            #expect(error?.code == .wrongPassword && error?.message.contains("password") == true)
            #expect(
                try keychain.info(for: .credential(for: "diary", service: KeychainKeyProvider.keychainOnlyService))
                    == nil
            )
        }
    }
}
