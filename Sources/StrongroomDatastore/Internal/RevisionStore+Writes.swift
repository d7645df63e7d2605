// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The document operations, each run inside the caller's transaction: a thrown error rolls back all of it.
extension RevisionStore {
    /// Creates a document, or a new live revision on top of a deleted one (CouchDB's re-creation).
    func create(id: String?, body: [String: JSONValue]) throws(DatastoreError) -> DocumentRevision {
        let docID = id ?? DocumentID.generate()
        try DocumentID.validate(docID)
        let (json, stored) = try BodyCodec.encode(body, docID: docID, revID: nil, limits: limits)
        let row = try sql { () throws(SQLiteError) -> Result<RevisionRow, DatastoreError> in
            let (docRow, isNew) = try insertDocumentIfNew(docID)
            var parent: RevisionRow?
            if !isNew {
                guard let winner = try winner(docRow: docRow), winner.isDeleted else {
                    return .failure(DatastoreError(.conflict, "a document with this ID exists"))
                }
                parent = winner
            }
            let revID = RevisionID.next(parent: parent?.revID, isDeleted: false, json: json)
            let row = try insertRevision(
                docRow: docRow,
                docID: docID,
                revID: revID,
                parent: parent,
                isDeleted: false,
                json: json
            )
            return .success(row)
        }
        return try row.revision(body: stored)
    }

    /// Writes a child of `parent` (which must be a live leaf): new content, or a tombstone.
    func write(
        from parent: DocumentRevision,
        body: [String: JSONValue],
        isDeleted: Bool
    ) throws(DatastoreError) -> DocumentRevision {
        try DocumentID.validate(parent.docID)
        _ = try RevisionID.parse(parent.revID)
        let (json, stored) = try BodyCodec.encode(
            isDeleted ? [:] : body,
            docID: parent.docID,
            revID: parent.revID,
            limits: limits
        )
        let row = try sql { () throws(SQLiteError) -> Result<RevisionRow, DatastoreError> in
            guard let docRow = try self.docRow(parent.docID) else {
                return .failure(DatastoreError(.notFound, "no document with this ID"))
            }
            guard let current = try revision(docRow: docRow, revID: parent.revID), current.isCurrent, !current.isDeleted
            else {
                return .failure(DatastoreError(.conflict, "the revision is not the document's current revision"))
            }
            // A live child carries its parent's attachments forward; a tombstone has none.
            let carried = isDeleted ? [] : try attachmentRows(sequence: current.sequence).map(\.attachment)
            let revID = RevisionID.next(parent: current.revID, isDeleted: isDeleted, json: json, attachments: carried)
            let row = try insertRevision(
                docRow: docRow,
                docID: parent.docID,
                revID: revID,
                parent: current,
                isDeleted: isDeleted,
                json: json
            )
            if !isDeleted { try carryAttachments(from: current.sequence, to: row.sequence) }
            return .success(row)
        }
        return try load(row, body: stored)
    }

    /// Adds a replicated revision with its history (newest first), creating missing ancestors as body-less stubs.
    /// A revision already present is returned unchanged, with `isNew` false.
    func forceInsert(
        docID: String,
        history: [String],
        body: [String: JSONValue],
        isDeleted: Bool
    ) throws(DatastoreError) -> (revision: DocumentRevision, isNew: Bool) {
        try DocumentID.validate(docID)
        try RevisionID.validateHistory(history, limit: limits.maximumHistoryLength)
        let (json, stored) = try BodyCodec.encode(
            isDeleted ? [:] : body,
            docID: docID,
            revID: history[0],
            limits: limits
        )
        let (row, isNew) = try sql { () throws(SQLiteError) -> (RevisionRow, Bool) in
            // A document new to this datastore has no revisions to look for (a first pull: most of them).
            let (docRow, isNewDocument) = try insertDocumentIfNew(docID)
            if !isNewDocument, let existing = try revision(docRow: docRow, revID: history[0]) {
                return (existing, false)
            }
            var parent: RevisionRow?
            for revID in history.dropFirst().reversed() {
                if !isNewDocument, let existing = try revision(docRow: docRow, revID: revID) {
                    parent = existing
                } else {
                    parent = try insertRevision(
                        docRow: docRow,
                        docID: docID,
                        revID: revID,
                        parent: parent,
                        isDeleted: false,
                        json: nil,
                        isCurrent: false
                    )
                }
            }
            let row = try insertRevision(
                docRow: docRow,
                docID: docID,
                revID: history[0],
                parent: parent,
                isDeleted: isDeleted,
                json: json
            )
            return (row, true)
        }
        return (try load(row, body: isNew ? stored : nil), isNew)
    }

    /// Runs SQL that may also decide a typed failure, mapping SQLite's errors on the way out.
    func sql<R>(_ body: () throws(SQLiteError) -> Result<R, DatastoreError>) throws(DatastoreError) -> R {
        let result: Result<R, DatastoreError>
        do {
            result = try body()
        } catch {
            throw DatastoreError(storage: error)
        }
        return try result.get()
    }

    /// Runs SQL, mapping SQLite's errors.
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(DatastoreError) -> R {
        do {
            return try body()
        } catch {
            throw DatastoreError(storage: error)
        }
    }
}

extension DatastoreError {
    /// A SQLite failure as a datastore error: ``Code/busy`` for a lock held past the timeout, else
    /// ``Code/storage``. SQL text and values never reach the message.
    init(storage error: SQLiteError, fileID: String = #fileID, line: Int = #line) {
        if error.code == .busy {
            self.init(
                .busy,
                "another connection holds the datastore's write lock",
                underlying: error,
                fileID: fileID,
                line: line
            )
        } else {
            self.init(.storage, "the database failed: \(error.code)", underlying: error, fileID: fileID, line: line)
        }
    }
}
