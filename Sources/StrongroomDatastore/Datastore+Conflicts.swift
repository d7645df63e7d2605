// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore
import StrongroomSQLite

extension Datastore {
    /// Adds a revision as a replicator receives it: with its ID and its history, newest first (`history[0]` is
    /// the revision's own ID), CDTDatastore's `forceInsert:revisionHistory:`. Missing ancestors are added without
    /// bodies; the new revision becomes a leaf, so a second branch makes the document conflicted. Adding a
    /// revision that is already present changes nothing and returns it.
    ///
    /// - Throws: ``DatastoreError/Code/invalidRevisionID`` for an empty or over-long history, an invalid ID, or
    ///   generations that are not consecutive; body errors as for ``createDocument(id:body:)``.
    @discardableResult
    public func forceInsert(
        docID: String,
        history: [String],
        body: [String: JSONValue],
        isDeleted: Bool = false
    ) async throws(DatastoreError) -> DocumentRevision {
        try await write { store throws(DatastoreError) in
            try store.forceInsert(docID: docID, history: history, body: body, isDeleted: isDeleted).revision
        }
    }

    /// The document's leaf revisions (live and deleted), winner first — what a conflict resolver chooses from.
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` for an unknown document.
    public func leaves(docID: String) async throws(DatastoreError) -> [DocumentRevision] {
        try DocumentID.validate(docID)
        return try await read { store throws(DatastoreError) in
            let rows = try store.sql { () throws(SQLiteError) in
                try store.docRow(docID).map { row throws(SQLiteError) in try store.leaves(docRow: row) }
            }
            guard let rows else { throw DatastoreError(.notFound, "no document with this ID") }
            return try rows.map { row throws(DatastoreError) in try store.load(row) }
        }
    }

    /// IDs of documents with more than one live leaf (CDTDatastore's `getConflictedDocumentIds`), a page at a
    /// time, ordered.
    public func conflictedDocumentIDs(offset: Int = 0, limit: Int = 1000) async throws(DatastoreError) -> [String] {
        try checkPage(offset: offset, limit: limit)
        return try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in try store.conflictedDocumentIDs(offset: offset, limit: limit) }
        }
    }

    /// Resolves a conflicted document (CDTDatastore's `resolveConflictsForDocument:resolver:`).
    ///
    /// `resolver` receives the live leaves, winner first, and returns one of them — unchanged, or with a changed
    /// ``DocumentRevision/body`` (a merge), which is written as its child — or nil to leave the document as it is.
    /// Every other leaf gets a tombstone. All of it happens in one transaction. The resolver runs while the write
    /// lock is held: it must be quick and deterministic, and it cannot call the datastore.
    ///
    /// - Returns: the new winning revision, or nil when the document was not conflicted or the resolver declined.
    /// - Throws: ``DatastoreError/Code/notFound`` for an unknown document; ``DatastoreError/Code/conflict`` when the
    ///   resolver returns a revision that is not one of the leaves; body errors for a merged body.
    @discardableResult
    public func resolveConflicts(
        docID: String,
        resolver: @escaping @Sendable ([DocumentRevision]) -> DocumentRevision?
    ) async throws(DatastoreError) -> DocumentRevision? {
        try DocumentID.validate(docID)
        return try await write { store throws(DatastoreError) in
            let leaves = try store.sql { () throws(SQLiteError) in
                try store.docRow(docID).map { row throws(SQLiteError) in try store.leaves(docRow: row) }
            }
            guard let leaves else { throw DatastoreError(.notFound, "no document with this ID") }
            let live = try leaves.filter { !$0.isDeleted }.map { row throws(DatastoreError) in try store.load(row) }
            guard live.count > 1, let chosen = resolver(live) else { return nil }
            guard let original = live.first(where: { $0.revID == chosen.revID }) else {
                throw DatastoreError(.conflict, "a resolver returns one of the conflicting revisions")
            }
            for loser in live where loser.revID != chosen.revID {
                _ = try store.write(from: loser, body: [:], isDeleted: true)
            }
            if chosen.body == original.body { return original }
            return try store.write(from: original, body: chosen.body, isDeleted: false)
        }
    }
}
