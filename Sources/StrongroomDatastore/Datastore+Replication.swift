// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCore
import StrongroomSQLite

/// A leaf revision as a replicator sends it: its IDs, its ancestry (newest first, starting with `revID`), whether it
/// is a tombstone, its body as the datastore stores it (canonical JSON; `{}` for a tombstone), and its attachments.
package struct OutgoingRevision: Sendable {
    package var docID: String
    package var revID: String
    package var ancestry: [String]
    package var isDeleted: Bool
    package var json: String
    package var attachments: [Attachment]
}

/// A revision as a replicator receives it, for ``Datastore/applyReplicated(_:purges:checkpoint:value:notes:)``.
package struct IncomingRevision: Sendable {
    package var docID: String
    package var history: [String]
    package var body: [String: JSONValue]
    package var isDeleted: Bool
    /// Its attachments: each either staged (``Datastore/stageAttachment(docID:name:revpos:)``) or already in the
    /// datastore with the same document, name, revpos and digest.
    package var attachments: [IncomingAttachment]

    package init(
        docID: String,
        history: [String],
        body: [String: JSONValue],
        isDeleted: Bool,
        attachments: [IncomingAttachment] = []
    ) {
        (self.docID, self.history, self.body, self.isDeleted) = (docID, history, body, isDeleted)
        self.attachments = attachments
    }
}

/// An attachment of a replicated revision.
package struct IncomingAttachment: Sendable {
    package var attachment: Attachment
    /// Its body, received and written (encrypted) but not yet part of the datastore; nil when the datastore holds
    /// it already.
    package var staged: StagedAttachment?

    package init(_ attachment: Attachment, staged: StagedAttachment?) {
        (self.attachment, self.staged) = (attachment, staged)
    }
}

/// An attachment body being received: appended to in pieces, then finished (synced, its length and digest known),
/// then made part of a revision by ``Datastore/applyReplicated(_:purges:checkpoint:value:notes:)`` or discarded.
package final class StagedAttachment: Sendable {
    let writer: AttachmentWriter

    init(writer: AttachmentWriter) { self.writer = writer }

    /// Adds the next piece of the body.
    package func append(_ bytes: [UInt8]) async throws(DatastoreError) {
        let writer = writer
        try await BlockingExecutor.shared.run { _ throws(DatastoreError) in try writer.append(bytes) }
    }

    /// Writes the last piece and syncs the file; returns the body's length and digest (`sha256-…`).
    package func finish() async throws(DatastoreError) -> (length: Int64, digest: String) {
        let writer = writer
        return try await BlockingExecutor.shared.run { _ throws(DatastoreError) in
            let digest = try writer.finish()
            return (writer.length, digest)
        }
    }

    /// Removes the file unless a revision took it.
    package func discard() { writer.discard() }
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
                let attachments = try store.sql { () throws(SQLiteError) in
                    try store.attachmentRows(sequence: row.sequence).map(\.attachment)
                }
                return OutgoingRevision(
                    docID: pair[0],
                    revID: pair[1],
                    ancestry: ancestry,
                    isDeleted: row.isDeleted,
                    json: json,
                    attachments: row.isDeleted ? [] : attachments.sorted { $0.name < $1.name }
                )
            }
        }
    }

    /// Adds replicated revisions as ``forceInsert(docID:history:body:isDeleted:)`` does, then applies replicated
    /// purges (each removes the listed revisions of its document, as ``purge(_:)`` does, and notes them), and saves
    /// the checkpoint `id` (and `notes`, other checkpoints that describe the same point), all in one transaction: a
    /// page and its checkpoint land together or not at all. A
    /// revision an earlier replicated purge removed is not taken back.
    ///
    /// - Returns: how many of the revisions were new, the IDs of the documents they went to, the IDs of the
    ///   documents that were not conflicted before and are now (more than one live leaf), and how many revisions the
    ///   purges removed.
    package func applyReplicated(
        _ revisions: [IncomingRevision],
        purges: [(docID: String, revisions: Set<String>)] = [],
        checkpoint id: String,
        value: String,
        notes: [String: String] = [:]
    ) async throws(DatastoreError) -> ReplicatedPage {
        let key = Self.checkpointPrefix + id
        let folder = attachmentFolder
        for purge in purges { try DocumentID.validate(purge.docID) }
        let (page, unused) = try await write { store throws(DatastoreError) in
            var page = ReplicatedPage()
            for revision in revisions {
                let purged = try store.sql { () throws(SQLiteError) in
                    try store.wasPurged(docID: revision.docID, revID: revision.history.first ?? "")
                }
                if purged { continue }
                let before = try store.sql { () throws(SQLiteError) in try store.liveLeafCount(revision.docID) }
                let outcome = try store.forceInsert(
                    docID: revision.docID,
                    history: revision.history,
                    body: revision.body,
                    isDeleted: revision.isDeleted
                )
                guard outcome.isNew else { continue }
                page.added += 1
                page.documents.insert(revision.docID)
                try store.attachReplicated(revision, sequence: outcome.revision.sequence)
                // One new revision adds at most one live leaf: without one before, there is no conflict now.
                if before == 1, try store.sql({ () throws(SQLiteError) in try store.liveLeafCount(revision.docID) }) > 1
                {
                    page.conflicted.insert(revision.docID)
                }
            }
            var files = Set<String>()
            for purge in purges {
                let removed = try store.purgeOne(docID: purge.docID, revisions: purge.revisions, remember: true)
                page.purged += removed.revIDs.count
                files.formUnion(removed.files)
            }
            try store.saveCheckpoint(key, value)
            for (note, text) in notes { try store.saveCheckpoint(Self.checkpointPrefix + note, text) }
            return (page, try store.unreferenced(files))
        }
        await Self.deleteAttachmentFiles(unused, in: folder)
        return page
    }
}

/// What ``Datastore/applyReplicated(_:purges:checkpoint:value:notes:)`` did with one page.
package struct ReplicatedPage: Sendable {
    /// How many revisions were new.
    package var added = 0
    /// The documents new revisions went to.
    package var documents: Set<String> = []
    /// The documents that were not conflicted before the page and are now.
    package var conflicted: Set<String> = []
    /// How many revisions the page's purges removed.
    package var purged = 0
}

extension Datastore {
    /// Revisions that are not leaves and lie at least `depth` generations below every leaf of their document
    /// (CouchDB's `revs_limit`), after the local sequence `after`, at most `limit`, in sequence order: what a
    /// replica may ask the server to forget. Returns them with the sequence to continue after.
    package func compactableRevisions(
        depth: Int,
        after: Int64,
        limit: Int
    ) async throws(DatastoreError) -> (revisions: [(docID: String, revID: String)], last: Int64) {
        try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in
                try store.connection.withStatement(
                    """
                    SELECT d.docid, r.revid, r.sequence FROM revs r JOIN docs d ON d.doc_id = r.doc_id
                    WHERE r.sequence > ? AND r.current = 0
                    AND CAST(substr(r.revid, 1, instr(r.revid, '-') - 1) AS INTEGER) <= (
                        SELECT min(CAST(substr(l.revid, 1, instr(l.revid, '-') - 1) AS INTEGER)) FROM revs l
                        WHERE l.doc_id = r.doc_id AND l.current = 1) - ?
                    ORDER BY r.sequence LIMIT ?
                    """
                ) { statement throws(SQLiteError) in
                    try statement.bind(after, at: 1)
                    try statement.bind(Int64(depth), at: 2)
                    try statement.bind(Int64(limit), at: 3)
                    var found: [(docID: String, revID: String)] = []
                    var last = after
                    while try statement.step() {
                        found.append((statement.text(at: 0) ?? "", statement.text(at: 1) ?? ""))
                        last = statement.int64(at: 2)
                    }
                    return (found, last)
                }
            }
        }
    }

    /// Starts receiving the body of attachment `name` of `docID` at `revpos` (encrypted under this datastore's key as
    /// it arrives, bound to the document, name and revpos).
    package func stageAttachment(
        docID: String,
        name: String,
        revpos: Int
    ) async throws(DatastoreError)
        -> StagedAttachment
    {
        try Self.validateAttachment(name: name, contentType: "application/octet-stream")
        try DocumentID.validate(docID)
        return StagedAttachment(writer: try await attachmentWriter(docID: docID, name: name, revpos: revpos))
    }

    /// Whether the datastore holds attachment `name` of `docID` with this revpos and digest (on any revision), so a
    /// replicated revision that carries it needs no copy of its body.
    package func hasAttachment(
        docID: String,
        name: String,
        revpos: Int,
        digest: String
    ) async throws(DatastoreError)
        -> Bool
    {
        try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in
                try store.attachmentFile(docID: docID, name: name, revpos: revpos, digest: digest) != nil
            }
        }
    }
}

extension RevisionStore {
    /// The file of attachment `name` of `docID` with this revpos and digest, on any revision.
    func attachmentFile(docID: String, name: String, revpos: Int, digest: String) throws(SQLiteError) -> String? {
        try connection.withStatement(
            """
            SELECT a.file FROM attachments a JOIN revs r ON a.sequence = r.sequence
            WHERE r.doc_id = (SELECT doc_id FROM docs WHERE docid = ?) AND a.name = ? AND a.revpos = ? AND a.digest = ?
            LIMIT 1
            """
        ) { statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
            try statement.bind(name, at: 2)
            try statement.bind(Int64(revpos), at: 3)
            try statement.bind(digest, at: 4)
            return try statement.step() ? statement.text(at: 0) : nil
        }
    }

    /// Adds a new replicated revision's attachments: staged bodies are renamed into place, the others share the
    /// file the datastore already holds.
    func attachReplicated(_ revision: IncomingRevision, sequence: Int64) throws(DatastoreError) {
        for incoming in revision.attachments {
            let attachment = incoming.attachment
            try Datastore.validateAttachment(name: attachment.name, contentType: attachment.contentType)
            let file: String
            if let staged = incoming.staged {
                // One body may serve several revisions of a page: renamed into place by the first.
                if !staged.writer.committed { try staged.writer.commit() }
                file = staged.writer.name
            } else {
                let found = try sql { () throws(SQLiteError) in
                    try attachmentFile(
                        docID: revision.docID,
                        name: attachment.name,
                        revpos: attachment.revpos,
                        digest: attachment.digest
                    )
                }
                guard let found else {
                    throw DatastoreError(.notFound, "a replicated attachment's body is neither staged nor held")
                }
                file = found
            }
            try sql { () throws(SQLiteError) in
                try insertAttachment(AttachmentRow(attachment: attachment, file: file), sequence: sequence)
            }
        }
    }

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
