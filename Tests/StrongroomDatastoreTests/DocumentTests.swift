// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomTesting
import StrongroomWire
import Testing

/// CDTDatastore's document API on both kinds of datastore: create, read, update, delete, history, bulk writes,
/// compaction and Codable bodies.
@Suite struct DocumentTests {
    @Test(
        "create, read, update and delete a document; revisions are N-<md5> and stale parents conflict",
        arguments: StoreKind.allCases
    )
    func lifecycle(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let created = try await store.createDocument(id: Canary.docID, body: Canary.body)
            #expect(created.docID == Canary.docID)
            #expect(created.generation == 1)
            #expect(created.revID.wholeMatch(of: /1-[0-9a-f]{32}/) != nil)
            #expect(try await store.document(id: Canary.docID) == created)

            var body = created.body
            body["n"] = .number(2)
            let updated = try await store.update(from: created, body: body)
            #expect(updated.generation == 2)
            #expect(updated.sequence > created.sequence)
            #expect(try await store.document(id: Canary.docID)["n"] == .number(2))
            #expect(try await store.document(id: Canary.docID, rev: created.revID) == created)

            let stale = await #expect(throws: DatastoreError.self) {
                try await store.update(from: created, body: ["n": .number(3)])
            }
            #expect(stale?.code == .conflict)

            let tombstone = try await store.delete(from: updated)
            #expect(tombstone.isDeleted && tombstone.generation == 3 && tombstone.body.isEmpty)
            let gone = await #expect(throws: DatastoreError.self) { try await store.document(id: Canary.docID) }
            #expect(gone?.code == .notFound)
            #expect(try await store.document(id: Canary.docID, rev: tombstone.revID).isDeleted)
            #expect(try await store.documentCount() == 0)

            // A deleted ID can be created again, as a child of its tombstone.
            let again = try await store.createDocument(id: Canary.docID, body: ["back": .bool(true)])
            #expect(again.generation == 4)
            let history = try await store.revisionHistory(of: again)
            #expect(history.map(\.revID) == [again.revID, tombstone.revID, updated.revID, created.revID])
            let duplicate = await #expect(throws: DatastoreError.self) {
                try await store.createDocument(id: Canary.docID, body: [:])
            }
            #expect(duplicate?.code == .conflict)
        }
    }

    @Test("the same edit of the same parent gets the same revision ID in any datastore", arguments: StoreKind.allCases)
    func deterministicRevisions(kind: StoreKind) async throws {
        let first = try await withDatastore(kind) { store, _ in
            try await store.createDocument(id: "a", body: ["x": .number(1), "y": .string("z")])
        }
        let second = try await withDatastore(.unencrypted) { store, _ in
            try await store.createDocument(id: "a", body: ["y": .string("z"), "x": .number(1)])
        }
        #expect(first.revID == second.revID)
        let generated = try await withDatastore(kind) { store, _ in try await store.createDocument(body: [:]) }
        #expect(generated.docID.wholeMatch(of: /[0-9a-f]{32}/) != nil)
    }

    @Test("listing, paging, bulk reads and counts see only live documents", arguments: StoreKind.allCases)
    func listing(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            for index in 0..<25 {
                try await store.createDocument(
                    id: String(format: "doc-%02d", index),
                    body: ["i": .number(Double(index))]
                )
            }
            try await store.delete(from: try await store.document(id: "doc-03"))
            #expect(try await store.documentCount() == 24)
            let page = try await store.allDocuments(offset: 2, limit: 5)
            #expect(page.map(\.docID) == ["doc-02", "doc-04", "doc-05", "doc-06", "doc-07"])
            let last = try await store.allDocuments(limit: 2, descending: true)
            #expect(last.map(\.docID) == ["doc-24", "doc-23"])
            let some = try await store.documents(ids: ["doc-10", "missing", "doc-03", "doc-01"])
            #expect(some.map(\.docID) == ["doc-10", "doc-01"])
            let deleted = try await store.deleteDocument(id: "doc-10")
            #expect(deleted.count == 1 && deleted[0].isDeleted)
            let again = await #expect(throws: DatastoreError.self) { try await store.deleteDocument(id: "doc-10") }
            #expect(again?.code == .notFound)
        }
    }

    @Test("a bulk write is one transaction: all of it, or none of it", arguments: StoreKind.allCases)
    func bulk(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let base = try await store.createDocument(id: "base", body: ["v": .number(1)])
            let written = try await store.bulkWrite([
                .create(id: "one", body: ["v": .number(1)]),
                .create(id: nil, body: [:]),
                .update(from: base, body: ["v": .number(2)]),
            ])
            #expect(written.count == 3 && written[2].generation == 2)
            let countBefore = try await store.documentCount()
            let failure = await #expect(throws: DatastoreError.self) {
                try await store.bulkWrite([
                    .create(id: "two", body: [:]),
                    .delete(from: written[2]),
                    .update(from: base, body: ["v": .number(3)]),  // stale: the batch fails here
                ])
            }
            #expect(failure?.code == .conflict)
            #expect(try await store.documentCount() == countBefore)
            #expect(try await store.documents(ids: ["two"]).isEmpty)
            #expect(try await store.document(id: "base").revID == written[2].revID)
        }
    }

    @Test("compaction drops non-leaf bodies and keeps the tree", arguments: StoreKind.allCases)
    func compaction(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            var revision = try await store.createDocument(id: Canary.docID, body: Canary.body)
            let first = revision
            for step in 1...5 {
                revision = try await store.update(from: revision, body: ["step": .number(Double(step))])
            }
            #expect(try await store.compact() == 5)
            let history = try await store.revisionHistory(of: revision)
            #expect(history.count == 6)
            let ancestorsCompacted = history.dropFirst().allSatisfy { $0.isCompacted }
            #expect(ancestorsCompacted)
            #expect(!history[0].isCompacted && history[0]["step"] == .number(5))
            let old = try await store.document(id: Canary.docID, rev: first.revID)
            #expect(old.isCompacted && old.body.isEmpty)
            #expect(try await store.integrityCheck().isEmpty)
            if kind == .unencrypted {
                // secure_delete: the compacted canary body is gone from the plain file too.
                let findings = try PlaintextScan.scan(
                    manager.directory,
                    for: [Canary.value]
                )
                #expect(findings.isEmpty, "\(findings)")
            }
        }
    }

    @Test(
        "every JSON type reads back as written: booleans stay booleans, 0 and 1 stay numbers",
        arguments: StoreKind.allCases
    )
    func jsonTypes(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let body: [String: JSONValue] = [
                "true": .bool(true), "false": .bool(false), "zero": .number(0), "one": .number(1),
                "negative": .number(-42.5), "big": .number(9_007_199_254_740_991), "null": .null,
                "text": .string("été ☃ \"quoted\" \\ / \n"), "empty": .string(""),
                "list": .array([.bool(true), .number(1), .null, .array([]), .object([:])]),
                "nested": .object(["a": .object(["b": .array([.string("c")])])]),
            ]
            let created = try await store.createDocument(id: "types", body: body)
            #expect(try await store.document(id: "types").body == body)
            #expect(try await store.document(id: "types", rev: created.revID).body == body)
        }
    }

    struct Note: Codable, Equatable {
        var title: String
        var tags: [String]
        var stars: Int
    }

    @Test("Codable values are stored as JSON objects and decode back", arguments: StoreKind.allCases)
    func codable(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let note = Note(title: "Porting", tags: ["cdt", "swift"], stars: 5)
            let created = try await store.createDocument(id: "note", encoding: note)
            #expect(try created.decode(Note.self) == note)
            var changed = note
            changed.stars = 4
            let updated = try await store.update(from: created, encoding: changed)
            #expect(try await store.document(id: "note").decode(Note.self) == changed)
            #expect(updated.generation == 2)
            let error = await #expect(throws: DatastoreError.self) {
                try await store.createDocument(id: "list", encoding: ["not", "an", "object"])
            }
            #expect(error?.code == .invalidBody)
        }
    }
}
