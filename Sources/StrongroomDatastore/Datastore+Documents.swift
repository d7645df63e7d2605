// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore
import StrongroomSQLite

extension Datastore {
    // MARK: Writing

    /// Creates a document with `body` as its first revision (`1-<hash>`). With a nil `id`, a random 128-bit hex ID
    /// is generated. An ID whose document was deleted is created again, as a child of its tombstone.
    ///
    /// - Throws: ``DatastoreError/Code/conflict`` when a live document has this ID;
    ///   ``DatastoreError/Code/invalidDocumentID``, ``DatastoreError/Code/invalidBody``,
    ///   ``DatastoreError/Code/documentTooLarge``, ``DatastoreError/Code/busy``. Nothing is written then.
    @discardableResult
    public func createDocument(
        id: String? = nil,
        body: [String: JSONValue]
    ) async throws(DatastoreError)
        -> DocumentRevision
    {
        try await write { store throws(DatastoreError) in try store.create(id: id, body: body) }
    }

    /// Creates a document whose body is `value` encoded as JSON (it must encode as an object).
    @discardableResult
    public func createDocument(
        id: String? = nil,
        encoding value: some Encodable
    ) async throws(DatastoreError)
        -> DocumentRevision
    {
        try await createDocument(id: id, body: try BodyCodec.object(encoding: value))
    }

    /// Writes `body` as a child of `revision`, which must be the document's current, live revision
    /// (CDTDatastore's `updateDocumentFromRevision:`).
    ///
    /// - Throws: ``DatastoreError/Code/conflict`` when `revision` is stale (another update came first), deleted
    ///   or unknown; ``DatastoreError/Code/notFound`` for an unknown document; body errors as for
    ///   ``createDocument(id:body:)``.
    @discardableResult
    public func update(
        from revision: DocumentRevision,
        body: [String: JSONValue]
    ) async throws(DatastoreError)
        -> DocumentRevision
    {
        try await write { store throws(DatastoreError) in
            try store.write(from: revision, body: body, isDeleted: false)
        }
    }

    /// Writes `value`, encoded as JSON, as a child of `revision`.
    @discardableResult
    public func update(
        from revision: DocumentRevision,
        encoding value: some Encodable
    ) async throws(DatastoreError)
        -> DocumentRevision
    {
        try await update(from: revision, body: try BodyCodec.object(encoding: value))
    }

    /// Deletes the document by writing a tombstone child of `revision` (the current, live revision). The history
    /// stays, so a replica learns of the deletion.
    ///
    /// - Throws: ``DatastoreError/Code/conflict`` for a stale revision; ``DatastoreError/Code/notFound``.
    @discardableResult
    public func delete(from revision: DocumentRevision) async throws(DatastoreError) -> DocumentRevision {
        try await write { store throws(DatastoreError) in
            try store.write(from: revision, body: [:], isDeleted: true)
        }
    }

    /// Deletes every live leaf of the document (all its conflicting branches), in one transaction
    /// (CDTDatastore's `deleteDocumentWithId:`). Returns the tombstones.
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` when the document does not exist or is already deleted.
    @discardableResult
    public func deleteDocument(id: String) async throws(DatastoreError) -> [DocumentRevision] {
        try DocumentID.validate(id)
        return try await write { store throws(DatastoreError) in
            let leaves = try store.sql { () throws(SQLiteError) in
                try store.docRow(id).map { row throws(SQLiteError) in try store.leaves(docRow: row) } ?? []
            }.filter { !$0.isDeleted }
            guard !leaves.isEmpty else { throw DatastoreError(.notFound, "no live document with this ID") }
            return try leaves.map { leaf throws(DatastoreError) in
                try store.write(from: try store.load(leaf), body: [:], isDeleted: true)
            }
        }
    }

    /// Runs every operation in one transaction: all are written, or — when one fails — none is, and that
    /// operation's error is thrown. Returns the new revisions in order.
    ///
    /// - Throws: ``DatastoreError/Code/documentTooLarge`` for more than ``DatastoreLimits/maximumBatchCount``
    ///   operations; otherwise the first failing operation's error.
    @discardableResult
    public func bulkWrite(_ operations: [DocumentWrite]) async throws(DatastoreError) -> [DocumentRevision] {
        guard operations.count <= limits.maximumBatchCount else {
            throw DatastoreError(.documentTooLarge, "a bulk write has at most \(limits.maximumBatchCount) operations")
        }
        return try await write { store throws(DatastoreError) in
            try operations.map { operation throws(DatastoreError) in
                switch operation {
                case .create(let id, let body): try store.create(id: id, body: body)
                case .update(let revision, let body):
                    try store.write(from: revision, body: body, isDeleted: false)
                case .delete(let revision): try store.write(from: revision, body: [:], isDeleted: true)
                case .forceInsert(let docID, let history, let body, let isDeleted):
                    try store.forceInsert(docID: docID, history: history, body: body, isDeleted: isDeleted).revision
                }
            }
        }
    }

    // MARK: Reading

    /// The winning revision of document `id`, or — with `rev` — that revision (a tombstone or an old revision
    /// included; an old one's body may have been compacted).
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` when there is no such document or revision, or (without `rev`)
    ///   the document is deleted; ``DatastoreError/Code/invalidDocumentID``,
    ///   ``DatastoreError/Code/invalidRevisionID``.
    public func document(id: String, rev: String? = nil) async throws(DatastoreError) -> DocumentRevision {
        try DocumentID.validate(id)
        if let rev { _ = try RevisionID.parse(rev) }
        return try await read { store throws(DatastoreError) in
            let row = try store.sql { () throws(SQLiteError) -> RevisionRow? in
                guard let rev else { return try store.winner(docID: id) }
                guard let docRow = try store.docRow(id) else { return nil }
                return try store.revision(docRow: docRow, revID: rev)
            }
            guard let row, rev != nil || !row.isDeleted else {
                throw DatastoreError(.notFound, row == nil ? "no such document or revision" : "the document is deleted")
            }
            return try store.load(row)
        }
    }

    /// The winning revisions of the live documents among `ids`, in the order given; missing and deleted ones are
    /// left out (CDTDatastore's `getDocumentsWithIds:`).
    ///
    /// - Throws: ``DatastoreError/Code/documentTooLarge`` for more than ``DatastoreLimits/maximumBatchCount`` IDs.
    public func documents(ids: [String]) async throws(DatastoreError) -> [DocumentRevision] {
        guard ids.count <= limits.maximumBatchCount else {
            throw DatastoreError(.documentTooLarge, "at most \(limits.maximumBatchCount) IDs at a time")
        }
        for id in ids { try DocumentID.validate(id) }
        return try await read { store throws(DatastoreError) in
            var found: [DocumentRevision] = []
            for id in ids {
                let row = try store.sql { () throws(SQLiteError) in try store.winner(docID: id) }
                if let row, !row.isDeleted { found.append(try store.load(row)) }
            }
            return found
        }
    }

    /// A page of the live documents' winning revisions, ordered by document ID (CDTDatastore's
    /// `getAllDocumentsOffset:limit:descending:`).
    ///
    /// - Throws: ``DatastoreError/Code/documentTooLarge`` when `limit` exceeds
    ///   ``DatastoreLimits/maximumBatchCount``; ``DatastoreError/Code/invalidArgument`` for a negative `offset` or `limit`.
    public func allDocuments(
        offset: Int = 0,
        limit: Int = 1000,
        descending: Bool = false
    ) async throws(DatastoreError)
        -> [DocumentRevision]
    {
        try checkPage(offset: offset, limit: limit)
        return try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in
                try store.winners(offset: offset, limit: limit, descending: descending)
            }.map { row throws(DatastoreError) in try store.load(row) }
        }
    }

    /// How many documents are live (not deleted).
    public func documentCount() async throws(DatastoreError) -> Int {
        try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in try store.liveDocumentCount() }
        }
    }

    /// `revision` and its ancestors to the root, newest first (CDTDatastore's `getRevisionHistory:`); ancestors
    /// whose bodies were compacted have ``DocumentRevision/isCompacted`` set. At most
    /// ``DatastoreLimits/maximumHistoryLength`` entries.
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` for an unknown document or revision.
    public func revisionHistory(of revision: DocumentRevision) async throws(DatastoreError) -> [DocumentRevision] {
        try DocumentID.validate(revision.docID)
        _ = try RevisionID.parse(revision.revID)
        return try await read { store throws(DatastoreError) in
            let chain = try store.sql { () throws(SQLiteError) -> [RevisionRow] in
                guard let docRow = try store.docRow(revision.docID),
                    let row = try store.revision(docRow: docRow, revID: revision.revID)
                else { return [] }
                return try store.history(of: row)
            }
            guard !chain.isEmpty else { throw DatastoreError(.notFound, "no such document or revision") }
            return try chain.map { row throws(DatastoreError) in try store.load(row) }
        }
    }

    /// Checks paging arguments before they reach SQL.
    func checkPage(offset: Int, limit: Int) throws(DatastoreError) {
        guard offset >= 0, limit >= 0 else {
            throw DatastoreError(.invalidArgument, "offset and limit are not negative")
        }
        guard limit <= limits.maximumBatchCount else {
            throw DatastoreError(.documentTooLarge, "a page has at most \(limits.maximumBatchCount) documents")
        }
    }
}
