// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomSQLite

extension Datastore {
    /// Removes the document `docID` entirely — every revision, attachment and query-index entry — as if it had
    /// never been written (CouchDB's `_purge` of every leaf). Unlike ``delete(from:)`` it leaves no tombstone, so a
    /// replica that still has the document does not learn of it from this datastore; `Replicator.purge(_:)` in
    /// StrongroomSync purges on every replica. Attachment bodies no other revision uses are deleted.
    ///
    /// - Returns: how many revisions were removed (0 for an unknown document).
    @discardableResult
    public func purge(_ docID: String) async throws(DatastoreError) -> Int {
        try await purge(docID: docID, revisions: nil, remember: false).count
    }

    /// Every revision ID of `docID`'s tree (leaves, ancestors and body-less stubs), oldest first; empty for an
    /// unknown document.
    package func revisionIDs(of docID: String) async throws(DatastoreError) -> [String] {
        try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in
                try store.connection.withStatement(
                    "SELECT revid FROM revs WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = ?) ORDER BY sequence"
                ) { statement throws(SQLiteError) in
                    try statement.bind(docID, at: 1)
                    var found: [String] = []
                    while try statement.step() { found.append(statement.text(at: 0) ?? "") }
                    return found
                }
            }
        }
    }

    /// Removes revisions of `docID` (every one when `revisions` is nil) as ``RevisionStore/purge(docRow:listed:)``
    /// describes, refreshing the document's query-index entries and deleting attachment bodies nothing else uses.
    /// When `remember`, every revision in `revisions` (or removed) is noted so a pull does not take it back. With
    /// `onlyListed`, only listed revisions go: an unlisted ancestor left without children becomes a leaf again (and
    /// the document is left whole when that ancestor's body was compacted away).
    ///
    /// - Returns: the revision IDs removed.
    package func purge(
        docID: String,
        revisions: Set<String>?,
        remember: Bool,
        onlyListed: Bool = false
    ) async throws(DatastoreError) -> [String] {
        try DocumentID.validate(docID)
        let folder = attachmentFolder
        let (removed, unused) = try await write { store throws(DatastoreError) in
            let removed = try store.purgeOne(
                docID: docID,
                revisions: revisions,
                remember: remember,
                onlyListed: onlyListed
            )
            return (removed.revIDs, try store.unreferenced(removed.files))
        }
        await Self.deleteAttachmentFiles(unused, in: folder)
        return removed
    }

    /// Deletes attachment body files after the transaction that dropped their last rows committed (a file left by a
    /// crash in between goes at the next ``compact()``).
    static func deleteAttachmentFiles(_ files: Set<String>, in folder: URL) async {
        guard !files.isEmpty else { return }
        // File removal is blocking work: on the blocking executor, never the cooperative pool.
        await BlockingExecutor.shared.run { _ in
            for file in files { try? FileManager.default.removeItem(at: folder.appending(path: file)) }
        }
    }
}

extension RevisionStore {
    func purgeOne(
        docID: String,
        revisions: Set<String>?,
        remember: Bool,
        onlyListed: Bool = false
    ) throws(DatastoreError) -> (revIDs: [String], files: Set<String>) {
        let found = try sql { () throws(SQLiteError) -> (Int64, [String], Set<String>)? in
            guard let docRow = try docRow(docID) else { return nil }
            let (removed, files) = try purge(docRow: docRow, listed: revisions, onlyListed: onlyListed)
            if remember { try rememberPurged(docID: docID, revIDs: (revisions ?? []).union(removed)) }
            return (docRow, removed, files)
        }
        guard let (docRow, removed, files) = found else {
            if remember, let revisions {
                try sql { () throws(SQLiteError) in try rememberPurged(docID: docID, revIDs: revisions) }
            }
            return ([], [])
        }
        if !removed.isEmpty { try IndexStore(store: self).refresh(docRow: docRow) }
        return (removed, files)
    }

    /// The attachment body files among `files` that no revision refers to any more.
    func unreferenced(_ files: Set<String>) throws(DatastoreError) -> Set<String> {
        guard !files.isEmpty else { return [] }
        return files.subtracting(try sql { () throws(SQLiteError) in try referencedAttachmentFiles() })
    }
}
