// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomTesting
import Testing

/// The datastore's front door is fail-closed: wrong, missing or superfluous keys are typed errors that open
/// nothing, names cannot escape the directory, and an encrypted datastore's folder holds no plaintext.
@Suite struct DatastoreManagerTests {
    struct NoKey: EncryptionKeyProvider {
        func encryptionKey() async throws -> EncryptionKey? { nil }
    }

    static func provider(_ byte: UInt8) throws -> SimpleKeyProvider {
        SimpleKeyProvider(key: try EncryptionKey([UInt8](repeating: byte, count: 32)))
    }

    @Test("an encrypted datastore reopens with its key; wrong, missing or nil keys are typed errors")
    func failClosed() async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory.appending(path: "stores"))
            let store = try await manager.datastore(named: "secrets", keyProvider: try Self.provider(1))
            #expect(store.isEncrypted)
            #expect(try await store.schemaVersion() == 6)

            let reopened = try await manager.datastore(named: "secrets", keyProvider: try Self.provider(1))
            #expect(try await reopened.schemaVersion() == 6)
            let cases: [(DatastoreError.Code, () async throws -> Datastore)] = [
                (.wrongKey, { try await manager.datastore(named: "secrets", keyProvider: try Self.provider(2)) }),
                (.keyRequired, { try manager.datastore(named: "secrets") }),
                (.keyRequired, { try await manager.datastore(named: "secrets", keyProvider: NoKey()) }),
                (.keyRequired, { try await manager.datastore(named: "fresh", keyProvider: NoKey()) }),
            ]
            for (code, open) in cases {
                let error = await #expect(throws: DatastoreError.self) { _ = try await open() }
                #expect(error?.code == code)
            }
            // An unencrypted datastore is never opened with a key (nor converted).
            _ = try manager.datastore(named: "plain")
            let error = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "plain", keyProvider: try Self.provider(1))
            }
            #expect(error?.code == .notEncrypted)
            #expect(try manager.allDatastores() == ["plain", "secrets"])
            #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "stores/fresh/db.sqlite").path))

            // No plaintext: table names, the schema, SQLite's magic.
            let findings = try PlaintextScan.scan(
                directory.appending(path: "stores/secrets"),
                for: ["SQLite format 3", "revs", "docid", "datastore_id"]
            )
            #expect(findings.isEmpty, "\(findings)")
        }
    }

    /// A provider that records whether it was asked for a key.
    private final class CountingProvider: EncryptionKeyProvider, @unchecked Sendable {
        var calls = 0
        func encryptionKey() async throws -> EncryptionKey? {
            calls += 1
            return try EncryptionKey([UInt8](repeating: 7, count: 32))
        }
    }

    @Test("opening in .existing mode creates nothing and asks no key; .createIfMissing (the default) creates")
    func openModes() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appending(path: "stores")
            let manager = try DatastoreManager(directory: folder)
            #expect(!FileManager.default.fileExists(atPath: folder.path), "the manager made its directory")
            #expect(try manager.allDatastores().isEmpty)
            let provider = CountingProvider()
            await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "missing", keyProvider: provider, mode: .existing)
            }
            #expect(throws: DatastoreError.self) { _ = try manager.datastore(named: "plain", mode: .existing) }
            #expect(provider.calls == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            let error = #expect(throws: DatastoreError.self) { _ = try manager.datastore(named: "x", mode: .existing) }
            #expect(error?.code == .notFound)
            let created = try await manager.datastore(named: "made", keyProvider: provider)
            await created.close()
            #expect(try manager.exists(named: "made"))
            let opened = try await manager.datastore(named: "made", keyProvider: provider, mode: .existing)
            await opened.close()
            #expect(provider.calls == 2)
        }
    }

    @Test("keys are exactly 32 bytes and never print", arguments: [0, 16, 31, 33, 64])
    func keyLength(count: Int) throws {
        let error = #expect(throws: DatastoreError.self) { try EncryptionKey([UInt8](repeating: 9, count: count)) }
        #expect(error?.code == .invalidKey)
        #expect("\(EncryptionKey.random())" == "EncryptionKey(256 bits)")
    }

    @Test(
        "names that could escape the directory or are not CouchDB-style are refused",
        arguments: [
            "", "../escape", "a/b", ".hidden", "Upper", "1digit", "with space", "nul\u{0}",
            String(repeating: "a", count: 129),
        ]
    )
    func badNames(name: String) async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            let error = #expect(throws: DatastoreError.self) { _ = try manager.datastore(named: name) }
            #expect(error?.code == .invalidName)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test(
        "a datastore file truncated to 0 bytes is refused (tampered), never silently re-created",
        arguments: [true, false]
    )
    func truncatedToEmpty(encrypted: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            func open() async throws -> Datastore {
                encrypted
                    ? try await manager.datastore(named: "notes", keyProvider: try Self.provider(4))
                    : try manager.datastore(named: "notes")
            }
            _ = try await open()
            let file = directory.appending(path: "notes/db.sqlite")
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            try Data().write(to: file)
            let error = await #expect(throws: DatastoreError.self) { _ = try await open() }
            #expect(error?.code == .tampered)
            #expect(try Data(contentsOf: file).isEmpty, "nothing was written into it")
        }
    }

    @Test("a deleted datastore is gone; deleting an unknown one is notFound")
    func delete() async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            _ = try await manager.datastore(named: "temporary", keyProvider: try Self.provider(3))
            try manager.deleteDatastore(named: "temporary")
            #expect(try manager.allDatastores().isEmpty)
            let error = #expect(throws: DatastoreError.self) { try manager.deleteDatastore(named: "temporary") }
            #expect(error?.code == .notFound)
        }
    }
}
