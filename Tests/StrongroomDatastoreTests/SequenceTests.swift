// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomSQLite
import StrongroomTesting
import Testing

@testable import StrongroomDatastore

/// Revision sequences only grow — the changes feed, index catch-up and replication checkpoints count on it — now
/// that the datastore numbers revisions itself instead of through AUTOINCREMENT (schema step 6).
@Suite struct SequenceTests {
    @Test(
        "a purge of the newest revisions, a reopen, then a write: the new revision is numbered above every old one",
        arguments: StoreKind.allCases
    )
    func purgedNewest(kind: StoreKind) async throws {
        try await withTemporaryDirectory { directory in
            let manager = try DatastoreManager(directory: directory)
            var store = try await kind.open(manager)
            _ = try await store.createDocument(id: "kept", body: ["n": 1])
            let first = try await store.createDocument(id: "gone", body: ["n": 2])
            let newest = try await store.update(from: first, body: ["n": 3])
            #expect(try await store.purge("gone") == 2)
            await store.close()

            store = try await kind.open(manager)
            let next = try await store.createDocument(id: "after", body: ["n": 4])
            #expect(next.sequence > newest.sequence, "a sequence a purged revision had was given again")
            #expect(try await store.changes(since: newest.sequence).changes.map(\.docID) == ["after"])
            let batch = try await store.bulkWrite([
                .create(id: "b1", body: ["n": 5]), .create(id: "b2", body: ["n": 6]),
            ])
            #expect(batch.map(\.sequence) == [next.sequence + 1, next.sequence + 2])
            await store.close()
        }
    }

    @Test(
        "a datastore of schema 5 (AUTOINCREMENT) migrates: revisions, conflicts and attachments kept, numbering above"
    )
    func migratesFromAutoincrement() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appending(path: "docs", directoryHint: .isDirectory)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appending(path: "db.sqlite").path
            try Self.makeSchemaFive(at: path)

            let manager = try DatastoreManager(directory: directory)
            let store = try manager.datastore(named: "docs", mode: .existing)
            #expect(try await store.schemaVersion() == 6)
            let a = try await store.document(id: "a")
            #expect(a.revID == "2-bbbb" && a.sequence == 2 && a["n"] == .number(2))
            #expect(try await store.conflictedDocumentIDs() == ["a"])
            #expect(Set(try await store.leaves(docID: "a").map(\.revID)) == ["2-bbbb", "2-aaaa"])
            #expect(try await store.document(id: "b").sequence == 3)
            // AUTOINCREMENT had handed out 5 (its revision was removed): the next revision is 6.
            let next = try await store.createDocument(id: "c", body: ["n": 9])
            #expect(next.sequence == 6)
            await store.close()

            let connection = try Connection(path: path, key: nil)
            let definition = try connection.scalarText("SELECT sql FROM sqlite_master WHERE name = 'revs'") ?? ""
            #expect(!definition.contains("AUTOINCREMENT") && definition.contains("UNIQUE (doc_id, revid)"))
            #expect(try connection.scalarText("SELECT count(*) FROM sqlite_sequence WHERE name = 'revs'") == "0")
            #expect(try connection.scalarText("SELECT count(*) FROM attachments WHERE sequence = 2") == "1")
            #expect(try connection.scalarText("PRAGMA foreign_key_check") == nil)
            #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
        }
    }

    /// An unencrypted datastore file as schema steps 1–5 made it: document `a` with a conflict (`1-` then `2-aaaa`
    /// and `2-bbbb`, an attachment on `2-bbbb`), document `b`, and revision 5 written and removed, so AUTOINCREMENT's
    /// count is above the table's largest sequence.
    private static func makeSchemaFive(at path: String) throws {
        let connection = try Connection(path: path, key: nil)
        for step in Schema.steps.prefix(5) {
            for statement in step { try connection.execute(statement) }
        }
        try connection.execute("PRAGMA user_version = 5")
        try connection.execute("INSERT INTO docs (doc_id, docid) VALUES (1, 'a'), (2, 'b'), (3, 'c5')")
        let rows: [(doc: Int64, revID: String, parent: Int64?, current: Bool, n: Int)] = [
            (1, "1-root", nil, false, 1), (1, "2-bbbb", 1, true, 2), (2, "1-bbb", nil, true, 3),
            (1, "2-aaaa", 1, true, 4), (3, "1-gone", nil, true, 5),
        ]
        let insert = try connection.prepare(
            "INSERT INTO revs (doc_id, revid, parent, current, json) VALUES (?, ?, ?, ?, ?)"
        )
        for row in rows {
            try insert.bind(row.doc, at: 1)
            try insert.bind(row.revID, at: 2)
            if let parent = row.parent { try insert.bind(parent, at: 3) } else { try insert.bindNull(at: 3) }
            try insert.bind(row.current, at: 4)
            try insert.bind(Data(CanonicalJSON.encode(["n": .number(Double(row.n))])), at: 5)
            try insert.run()
        }
        try connection.execute(
            """
            INSERT INTO attachments (sequence, name, content_type, length, digest, revpos, file)
            VALUES (2, 'scan.bin', 'application/octet-stream', 3, 'md5-AAAA', 2, 'file-1')
            """
        )
        try connection.execute("DELETE FROM revs WHERE sequence = 5")
        try connection.execute("DELETE FROM docs WHERE doc_id = 3")
        #expect(try connection.scalarText("SELECT seq FROM sqlite_sequence WHERE name = 'revs'") == "5")
    }
}
