// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCore
import StrongroomSQLite

/// A leaf revision as a replicator sends it: its IDs, its ancestry (newest first, starting with `revID`), whether it
/// is a tombstone, and its body as the datastore stores it (canonical JSON; `{}` for a tombstone).
package struct OutgoingRevision: Sendable, Hashable {
    package var docID: String
    package var revID: String
    package var ancestry: [String]
    package var isDeleted: Bool
    package var json: String
}

/// A revision as a replicator receives it, for ``Datastore/applyReplicated(_:checkpoint:value:)``.
package struct IncomingRevision: Sendable {
    package var docID: String
    package var history: [String]
    package var body: [String: JSONValue]
    package var isDeleted: Bool

    package init(docID: String, history: [String], body: [String: JSONValue], isDeleted: Bool) {
        (self.docID, self.history, self.body, self.isDeleted) = (docID, history, body, isDeleted)
    }
}

/// The replicator's batch reads and writes (package API for `StrongroomSync`): one hop to the datastore's executor
/// per page instead of one per revision.
extension Datastore {
    /// The revisions `leaves` names, with at most `maximumAncestry` IDs of ancestry each, read in one go.
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` when one of them is not in the datastore.
    package func outgoingRevisions(
        _ leaves: [(docID: String, revID: String)],
        maximumAncestry: Int
    ) async throws(DatastoreError) -> [OutgoingRevision] {
        let leaves = leaves.map { [$0.docID, $0.revID] }
        return try await read { store throws(DatastoreError) in
            try leaves.map { pair throws(DatastoreError) -> OutgoingRevision in
                let found = try store.sql { () throws(SQLiteError) -> (RevisionRow, [String])? in
                    guard let docRow = try store.docRow(pair[0]),
                        let row = try store.revision(docRow: docRow, revID: pair[1])
                    else { return nil }
                    return (row, try store.history(of: row).prefix(maximumAncestry).map(\.revID))
                }
                guard let (row, ancestry) = found else {
                    throw DatastoreError(.notFound, "a revision to replicate is no longer in the datastore")
                }
                let json = row.isDeleted ? "{}" : row.json.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                return OutgoingRevision(
                    docID: pair[0],
                    revID: pair[1],
                    ancestry: ancestry,
                    isDeleted: row.isDeleted,
                    json: json
                )
            }
        }
    }

    /// Adds replicated revisions as ``forceInsert(docID:history:body:isDeleted:)`` does, and saves the checkpoint
    /// `id`, all in one transaction: a page and its checkpoint land together or not at all.
    ///
    /// - Returns: how many of the revisions were new, the IDs of the documents they went to, and the IDs of the
    ///   documents that were not conflicted before and are now (more than one live leaf).
    package func applyReplicated(
        _ revisions: [IncomingRevision],
        checkpoint id: String,
        value: String
    ) async throws(DatastoreError) -> (added: Int, documents: Set<String>, conflicted: Set<String>) {
        let key = Self.checkpointPrefix + id
        return try await write { store throws(DatastoreError) in
            var added = 0
            var (documents, conflicted) = (Set<String>(), Set<String>())
            for revision in revisions {
                let before = try store.sql { () throws(SQLiteError) in try store.liveLeafCount(revision.docID) }
                let outcome = try store.forceInsert(
                    docID: revision.docID,
                    history: revision.history,
                    body: revision.body,
                    isDeleted: revision.isDeleted
                )
                guard outcome.isNew else { continue }
                added += 1
                documents.insert(revision.docID)
                if before <= 1, try store.sql({ () throws(SQLiteError) in try store.liveLeafCount(revision.docID) }) > 1
                {
                    conflicted.insert(revision.docID)
                }
            }
            try store.saveCheckpoint(key, value)
            return (added, documents, conflicted)
        }
    }
}

extension RevisionStore {
    /// How many live (not deleted) leaves the document has; 0 for an unknown one.
    func liveLeafCount(_ docID: String) throws(SQLiteError) -> Int {
        try connection.withStatement(
            "SELECT count(*) FROM revs WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = ?) AND current = 1 AND deleted = 0"
        ) { statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }
}
