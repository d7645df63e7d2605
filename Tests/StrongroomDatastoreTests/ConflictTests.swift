// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// Replicated revisions, CouchDB's winning-revision rule, and conflict resolution in one transaction.
@Suite struct ConflictTests {
    /// A document with two live branches: `2-aaa…` (ours) and `3-bbb…` (theirs, replicated).
    static func conflicted(_ store: Datastore) async throws -> (ours: DocumentRevision, theirs: DocumentRevision) {
        let root = try await store.createDocument(id: Canary.docID, body: ["v": .number(0)])
        let ours = try await store.update(from: root, body: ["v": .number(1), "side": .string("ours")])
        let theirs = try await store.forceInsert(
            docID: Canary.docID,
            history: ["3-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "2-cccccccccccccccccccccccccccccccc", root.revID],
            body: ["v": .number(2), "side": .string("theirs"), Canary.field: .string(Canary.value)]
        )
        return (ours, theirs)
    }

    @Test("a page of replicated revisions lands in one bulk write: all of it, or none when one is invalid")
    func bulkForceInsert() async throws {
        try await withDatastore(.encrypted) { store, _ in
            let a = "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            let page: [DocumentWrite] = [
                .forceInsert(docID: "x", history: [a], body: ["v": .number(1)], isDeleted: false),
                .forceInsert(
                    docID: "x",
                    history: ["3-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "2-cccccccccccccccccccccccccccccccc", a],
                    body: ["v": .number(3)],
                    isDeleted: false
                ),
                .forceInsert(
                    docID: "x",
                    history: ["2-dddddddddddddddddddddddddddddddd", a],
                    body: [:],
                    isDeleted: true
                ),
                .forceInsert(docID: "y", history: ["1-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"], body: [:], isDeleted: false),
            ]
            let written = try await store.bulkWrite(page)
            #expect(written.map(\.revID).last == "1-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
            #expect(try await store.document(id: "x").body == ["v": .number(3)])
            #expect(try await store.leaves(docID: "x").count == 2)
            // Again: nothing new; with one bad history in the page, nothing of it is written.
            _ = try await store.bulkWrite(page)
            let bad = await #expect(throws: DatastoreError.self) {
                try await store.bulkWrite([
                    .forceInsert(
                        docID: "z",
                        history: ["1-ffffffffffffffffffffffffffffffff"],
                        body: [:],
                        isDeleted: false
                    ),
                    .forceInsert(docID: "z", history: ["3-gggg", "1-ffff"], body: [:], isDeleted: false),
                ])
            }
            #expect(bad?.code == .invalidRevisionID)
            await #expect(throws: DatastoreError.self) { try await store.document(id: "z") }
        }
    }

    @Test(
        "forceInsert adds a branch with its history; the winner is CouchDB's; inserting again is a no-op",
        arguments: StoreKind.allCases
    )
    func replicatedBranch(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let (ours, theirs) = try await Self.conflicted(store)
            #expect(try await store.document(id: Canary.docID).revID == theirs.revID)  // higher generation wins
            #expect(try await store.conflictedDocumentIDs() == [Canary.docID])
            #expect(try await store.leaves(docID: Canary.docID).map(\.revID) == [theirs.revID, ours.revID])
            let unknown = await #expect(throws: DatastoreError.self) { try await store.leaves(docID: "nope") }
            #expect(unknown?.code == .notFound)
            let stub = try await store.document(id: Canary.docID, rev: "2-cccccccccccccccccccccccccccccccc")
            #expect(stub.isCompacted)
            let again = try await store.forceInsert(docID: Canary.docID, history: [theirs.revID], body: [:])
            #expect(again == theirs)
            #expect(try await store.revisionHistory(of: theirs).count == 3)

            // A deleted leaf never wins over a live one, whatever its generation.
            try await store.forceInsert(
                docID: Canary.docID,
                history: ["4-dddddddddddddddddddddddddddddddd", theirs.revID],
                body: [:],
                isDeleted: true
            )
            #expect(try await store.document(id: Canary.docID).revID == ours.revID)
            #expect(try await store.conflictedDocumentIDs().isEmpty)
        }
    }

    @Test(
        "resolving picks one leaf and tombstones the others atomically; a merge writes a child",
        arguments: StoreKind.allCases
    )
    func resolve(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let (ours, _) = try await Self.conflicted(store)
            // Declining leaves the document as it is.
            #expect(try await store.resolveConflicts(docID: Canary.docID) { _ in nil } == nil)
            #expect(try await store.conflictedDocumentIDs() == [Canary.docID])
            // A revision that is not a leaf (here: the root) is refused and changes nothing.
            let root = try await store.revisionHistory(of: ours).last!
            let refused = await #expect(throws: DatastoreError.self) {
                try await store.resolveConflicts(docID: Canary.docID) { _ in root }
            }
            #expect(refused?.code == .conflict)
            #expect(try await store.conflictedDocumentIDs() == [Canary.docID])

            // Merge: keep ours, with their value.
            let winner = try await store.resolveConflicts(docID: Canary.docID) { leaves in
                guard var chosen = leaves.first(where: { $0["side"] == .string("ours") }),
                    let theirs = leaves.first(where: { $0["side"] == .string("theirs") })
                else { return nil }
                chosen.body["v"] = theirs["v"]
                return chosen
            }
            #expect(winner?.generation == 3)
            #expect(winner?["v"] == .number(2) && winner?["side"] == .string("ours"))
            #expect(try await store.conflictedDocumentIDs().isEmpty)
            #expect(try await store.document(id: Canary.docID) == winner)
            // Not conflicted any more: the resolver is not called.
            #expect(
                try await store.resolveConflicts(docID: Canary.docID) { _ in
                    Issue.record("called"); return nil
                } == nil
            )
        }
    }

    @Test("replicated histories are checked: order, generations, length, IDs", arguments: StoreKind.allCases)
    func badHistories(kind: StoreKind) async throws {
        let limits = DatastoreLimits(maximumHistoryLength: 3)
        try await withDatastore(kind, limits: limits) { store, _ in
            let histories: [[String]] = [
                [],
                ["2-aa", "3-bb"],
                ["3-aa", "1-bb"],
                ["4-aa", "3-bb", "2-cc", "1-dd"],
                ["1-a.b"],
                ["0-aa"],
                ["01-aa"],
                ["99999999999-aa"],
                ["1-" + String(repeating: "a", count: 65)],
            ]
            for history in histories {
                let error = await #expect(throws: DatastoreError.self) {
                    try await store.forceInsert(docID: "d", history: history, body: [:])
                }
                #expect(error?.code == .invalidRevisionID, "\(history)")
            }
            let count = try await store.documentCount()
            #expect(count == 0)
        }
    }
}
