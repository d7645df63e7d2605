// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomSQLite
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomDatastore

/// One writer at a time with readers alongside (WAL), rekeying in place, and the stock `sqlcipher` shell reading
/// a datastore with the documented settings.
@Suite struct ConcurrencyAndRekeyTests {
    @Test(
        "a held write lock makes another writer wait, then fail with busy; readers carry on",
        arguments: StoreKind.allCases
    )
    func writerLock(kind: StoreKind) async throws {
        let limits = DatastoreLimits(lockTimeout: .milliseconds(200))
        try await withDatastore(kind, limits: limits) { first, manager in
            try await first.createDocument(id: "a", body: ["v": .number(1)])
            let second = try await kind.open(manager)
            try await first.withConnection { connection throws(DatastoreError) in
                do throws(SQLiteError) { try connection.execute("BEGIN IMMEDIATE") } catch {
                    throw DatastoreError(storage: error)
                }
            }
            #expect(try await second.document(id: "a")["v"] == .number(1))  // a reader does not wait
            let error = await #expect(throws: DatastoreError.self) {
                try await second.createDocument(id: "b", body: [:])
            }
            #expect(error?.code == .busy)
            try await first.withConnection { connection throws(DatastoreError) in
                do throws(SQLiteError) { try connection.execute("COMMIT") } catch {
                    throw DatastoreError(storage: error)
                }
            }
            try await second.createDocument(id: "b", body: [:])
            #expect(try await first.documentCount() == 2)
            await second.close()
        }
    }

    @Test("a closed datastore refuses calls with closed")
    func closed() async throws {
        try await withDatastore(.encrypted) { store, manager in
            let other = try await StoreKind.encrypted.open(manager)
            await other.close()
            let error = await #expect(throws: DatastoreError.self) { try await other.documentCount() }
            #expect(error?.code == .closed)
            #expect(try await store.documentCount() == 0)
        }
    }

    @Test("rekey re-encrypts in place: the new key opens it with every document, the old one no longer does")
    func rekey() async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            let store = try await manager.datastore(named: "r", keyProvider: StoreKind.provider)
            for index in 0..<200 { try await store.createDocument(id: "doc-\(index)", body: Canary.body) }
            let newProvider = SimpleKeyProvider(key: EncryptionKey.random())
            // While another handle has it open, rekey is refused as busy and changes nothing.
            let other = try await manager.datastore(named: "r", keyProvider: StoreKind.provider)
            _ = try await other.documentCount()
            let busy = await #expect(throws: DatastoreError.self) { try await store.rekey(to: newProvider) }
            #expect(busy?.code == .busy, "\(String(describing: busy))")
            #expect(try await other.documentCount() == 200)
            await other.close()
            try await store.rekey(to: newProvider)
            try await store.createDocument(id: "after", body: [:])  // the open handle keeps working
            #expect(try await store.integrityCheck().isEmpty)
            await store.close()

            let error = await #expect(throws: DatastoreError.self) {
                _ = try await manager.datastore(named: "r", keyProvider: StoreKind.provider)
            }
            #expect(error?.code == .wrongKey)
            let reopened = try await manager.datastore(named: "r", keyProvider: newProvider)
            #expect(try await reopened.documentCount() == 201)
            #expect(try await reopened.integrityCheck().isEmpty)
            await reopened.close()
            let plain = try manager.datastore(named: "p")
            let notEncrypted = await #expect(throws: DatastoreError.self) { try await plain.rekey(to: newProvider) }
            #expect(notEncrypted?.code == .notEncrypted)
            #expect(try PlaintextScan.scan(directory.appending(path: "r"), for: Canary.all).isEmpty)
        }
    }

    @Test("close releases the database: no file of it stays open in the process (statements once kept it alive)")
    func closeReleasesFiles() async throws {
        try await withTemporaryDirectory { directory in
            func openFiles() -> [String] {
                let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
                return fds.compactMap {
                    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
                }
                .filter { $0.hasPrefix(directory.path) }
            }
            let manager = try DatastoreManager(directory: directory)
            let store = try await manager.datastore(named: "c", keyProvider: StoreKind.provider)
            for index in 0..<20 { try await store.createDocument(id: "doc-\(index)", body: Canary.body) }
            _ = try await store.documents(ids: ["doc-1", "doc-2"])
            _ = try await store.integrityCheck()
            #expect(!openFiles().isEmpty)
            await store.close()
            #expect(openFiles().isEmpty, "\(openFiles())")
        }
    }

    @Test("the stock sqlcipher shell reads a datastore's documents with the documented key and settings")
    func stockShell() async throws {
        let shell = URL(fileURLWithPath: "/usr/bin/sqlcipher")
        try #require(FileManager.default.isExecutableFile(atPath: shell.path), "run Scripts/install-sqlcipher.sh")
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            let store = try await manager.datastore(named: "shell", keyProvider: StoreKind.provider)
            try await store.createDocument(id: Canary.docID, body: Canary.body)
            await store.close()
            let script =
                (["PRAGMA key = \"x'\(try StoreKind.databaseKeyHex())'\";"] + Connection.cipherSettings.map { $0 + ";" })
                .joined(separator: "\n")
                + "\nSELECT d.docid, r.revid, r.json FROM docs d JOIN revs r ON r.doc_id = d.doc_id;\n"
            let input = directory.appending(path: "commands.sql")
            try Data(script.utf8).write(to: input)
            let path = directory.appending(path: "shell/db.sqlite").path
            let outcome = try await ExternalProcess.run(shell, arguments: [path, ".read \(input.path)"])
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.output.contains(Canary.docID) && outcome.output.contains(Canary.value), "\(outcome.output)")
        }
    }
}
