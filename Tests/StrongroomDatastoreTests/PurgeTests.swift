// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomSQLite
import StrongroomTesting
import Testing

@testable import StrongroomDatastore

/// Purge: a document removed as if never written — revisions, attachment bodies, query-index entries — and, for a
/// replicated purge, only the listed leaves and the ancestors left without children, noted so a pull does not take
/// them back.
@Suite struct PurgeTests {
    @Test(
        "purge removes every revision, attachment body and index entry; the ID can be used afresh",
        arguments: StoreKind.allCases
    )
    func wholeDocument(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            try await store.ensureIndexed(fields: ["colour"], name: "by_colour")
            var secret = try await store.createDocument(id: "secret", body: ["colour": "red"])
            secret = try await store.addAttachment(
                named: "scan.bin",
                contentType: "application/octet-stream",
                to: secret,
                contents: AttachmentTests.chunks(AttachmentTests.content)
            )
            let attached = secret
            secret = try await store.update(from: secret, body: ["colour": "blue"])
            // A conflicting branch: two leaves to remove.
            _ = try await store.forceInsert(
                docID: "secret",
                history: ["3-other", attached.revID],
                body: ["colour": "blue"]
            )
            #expect(try await store.conflictedDocumentIDs() == ["secret"])
            let kept = try await store.createDocument(id: "kept", body: ["colour": "blue"])
            #expect(try await store.find(selector: ["colour": "blue"]).count == 2)
            #expect(try AttachmentTests.files(manager).count == 1)

            #expect(try await store.purge("secret") == 4)
            #expect(try await store.conflictedDocumentIDs().isEmpty)
            await #expect(throws: DatastoreError.self) { try await store.document(id: "secret") }
            await #expect(throws: DatastoreError.self) { try await store.leaves(docID: "secret") }
            #expect(try await store.find(selector: ["colour": "blue"]).map(\.docID) == ["kept"])
            #expect(try await store.find(selector: ["colour": "red"]).isEmpty)
            #expect(try AttachmentTests.files(manager).isEmpty, "the body only the purged document used is gone")
            #expect(try await store.changes().changes.map(\.docID) == ["kept"])
            #expect(try await store.purge("secret") == 0)
            #expect(try await store.purge("never-written") == 0)

            let fresh = try await store.createDocument(id: "secret", body: ["colour": "green"])
            #expect(fresh.generation == 1)
            #expect(try await store.find(selector: ["colour": "green"]).map(\.docID) == ["secret"])
            #expect(try await store.document(id: "kept") == kept)
            #expect(try await store.integrityCheck().isEmpty)
        }
    }

    @Test("a purge before an index's first catch-up: the build that follows keeps each document's entries once")
    func purgeBeforeFirstCatchUp() async throws {
        try await withDatastore(.encrypted) { store, _ in
            // Defined on an empty datastore: nothing to catch up yet, so the index is still at sequence 0.
            try await store.ensureIndexed(fields: ["colour"], name: "by_colour")
            let first = try await store.createDocument(id: "doc", body: ["colour": "blue"])
            let second = try await store.update(from: first, body: ["colour": "blue"])
            _ = try await store.forceInsert(
                docID: "doc",
                history: ["2-elsewhere", first.revID],
                body: ["colour": "blue"]
            )
            _ = try await store.createDocument(id: "other", body: ["colour": "blue"])
            // The purge refreshes the document's entries in every index, this one included, before its first build
            // (which starts from nothing and must not add the same entries a second time).
            #expect(try await store.purge(docID: "doc", revisions: [second.revID], remember: false) == [second.revID])
            #expect(try await store.find(selector: ["colour": "blue"]).map(\.docID) == ["doc", "other"])
            #expect(
                try await store.find(selector: ["colour": ["$in": ["blue", "red"]]]).map(\.docID) == ["doc", "other"]
            )
            let rows = try await store.withConnection { connection throws(DatastoreError) in
                do throws(SQLiteError) { return try connection.scalarText("SELECT count(*) FROM query_values") } catch {
                    throw DatastoreError(storage: error)
                }
            }
            #expect(rows == "2", "one entry per document")
        }
    }

    @Test(
        "a replicated purge removes the listed leaves and childless ancestors, keeps a concurrent edit, and is remembered"
    )
    func listedRevisions() async throws {
        try await withDatastore(.encrypted) { store, _ in
            let first = try await store.createDocument(id: "doc", body: ["v": 1])
            let second = try await store.update(from: first, body: ["v": 2])
            // Another replica's edit on top of the first revision, which the purging replica never saw.
            let concurrent = try await store.forceInsert(
                docID: "doc",
                history: ["2-elsewhere", first.revID],
                body: ["v": "x"]
            )
            let removed = try await store.purge(docID: "doc", revisions: [first.revID, second.revID], remember: true)
            #expect(removed == [second.revID], "the first revision stays as the concurrent edit's ancestor")
            #expect(try await store.leaves(docID: "doc").map(\.revID) == [concurrent.revID])
            #expect(try await store.document(id: "doc").body == ["v": "x"])

            // A replica that had not heard of the purge sends the purged leaf again: not taken back.
            let page = try await store.applyReplicated(
                [
                    IncomingRevision(
                        docID: "doc",
                        history: [second.revID, first.revID],
                        body: ["v": 2],
                        isDeleted: false
                    )
                ],
                checkpoint: "test",
                value: "1"
            )
            #expect(page.added == 0)
            #expect(try await store.leaves(docID: "doc").map(\.revID) == [concurrent.revID])

            // The concurrent edit purged too (a second marker): the document is gone, its revisions all noted.
            let page2 = try await store.applyReplicated(
                [],
                purges: [("doc", [concurrent.revID])],
                checkpoint: "test",
                value: "2"
            )
            #expect(page2.purged == 2)
            await #expect(throws: DatastoreError.self) { try await store.document(id: "doc") }
            let again = try await store.applyReplicated(
                [
                    IncomingRevision(
                        docID: "doc",
                        history: [concurrent.revID, first.revID],
                        body: [:],
                        isDeleted: false
                    )
                ],
                checkpoint: "test",
                value: "3"
            )
            #expect(again.added == 0)
            #expect(try await store.checkpoint("test") == "3")
        }
    }
}
