// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stored revision row.
struct RevisionRow: Sendable {
    var sequence: Int64
    var docRow: Int64
    var docID: String
    var revID: String
    var parent: Int64?
    var isCurrent: Bool
    var isDeleted: Bool
    var json: Data?
    /// Whether the revision has attachments, when the query said (nil: ask).
    var hasAttachments: Bool? = nil

    /// The public value; `json` is decoded (an empty body when compacted), unless the caller already has the
    /// body it was encoded from.
    func revision(body known: [String: JSONValue]? = nil) throws(DatastoreError) -> DocumentRevision {
        let body: [String: JSONValue]
        if let known {
            body = known
        } else if let json {
            body = try BodyCodec.decode(json)
        } else {
            body = [:]
        }
        return DocumentRevision(
            docID: docID,
            revID: revID,
            isDeleted: isDeleted,
            sequence: sequence,
            body: body,
            isCompacted: json == nil
        )
    }
}

/// The revision tree's SQL, run synchronously on the datastore's serial executor (inside a transaction for
/// writes). Every statement binds its values; none is built from input.
struct RevisionStore {
    let connection: Connection
    let limits: DatastoreLimits
    /// The next sequence this store's write transaction gives a revision, once it gave one (`nextSequence`). A
    /// store is made for one transaction (`Datastore.write`), so the count never outlives the snapshot it came from.
    private let sequences = SequenceCounter()

    /// Revisions are ordered for the winning-revision rule: live before deleted, then the higher generation, then
    /// the higher revision ID — CouchDB's rule, so every replica picks the same winner.
    static let winnerOrder =
        "r.deleted ASC, CAST(substr(r.revid, 1, instr(r.revid, '-') - 1) AS INTEGER) DESC, r.revid DESC"
    /// The row's columns, and whether the revision has attachments (one probe of their primary key here saves a
    /// statement per revision when it has none, the common case).
    private static let columns = """
        r.sequence, r.doc_id, d.docid, r.revid, r.parent, r.current, r.deleted, r.json,
        EXISTS (SELECT 1 FROM attachments a WHERE a.sequence = r.sequence) AS attached
        """

    /// The reads below, built once: a statement is looked up by its text on every call (`withStatement`), so the
    /// text is not rebuilt per call either.
    private enum Query {
        static let select = "SELECT \(columns) FROM revs r JOIN docs d ON d.doc_id = r.doc_id"
        static let winnerByRow = "\(select) WHERE r.doc_id = ? AND r.current = 1 ORDER BY \(winnerOrder) LIMIT 1"
        static let winnerByID = "\(select) WHERE d.docid = ? AND r.current = 1 ORDER BY \(winnerOrder) LIMIT 1"
        static let leaves = "\(select) WHERE r.doc_id = ? AND r.current = 1 ORDER BY \(winnerOrder)"
        static let twoLeavesByRow = "\(select) WHERE r.doc_id = ? AND r.current = 1 LIMIT 2"
        static let twoLeavesByID = "\(select) WHERE d.docid = ? AND r.current = 1 LIMIT 2"
        static let revision = "\(select) WHERE r.doc_id = ? AND r.revid = ?"
        static let bySequence = "\(select) WHERE r.sequence = ?"
    }

    // MARK: Reading

    /// The internal row number of a document, or nil when it was never written.
    func docRow(_ docID: String) throws(SQLiteError) -> Int64? {
        try connection.withStatement("SELECT doc_id FROM docs WHERE docid = ?") { statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
    }

    /// The winning revision (possibly a tombstone), or nil.
    func winner(docRow: Int64) throws(SQLiteError) -> RevisionRow? {
        try winner(Query.twoLeavesByRow, ranked: Query.winnerByRow) { statement throws(SQLiteError) in
            try statement.bind(docRow, at: 1)
        }
    }

    /// The winning revision of document `docID` (possibly a tombstone), or nil.
    func winner(docID: String) throws(SQLiteError) -> RevisionRow? {
        try winner(Query.twoLeavesByID, ranked: Query.winnerByID) { statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
        }
    }

    /// A document's only leaf — the common case — is its winner without ranking: `ranked`, which sorts the leaves
    /// with their bodies, runs only when `leaves` (at most two, unordered) finds two or more.
    private func winner(
        _ leaves: String,
        ranked: String,
        bind: (Statement) throws(SQLiteError) -> Void
    ) throws(SQLiteError) -> RevisionRow? {
        let found = try rows(leaves, bind: bind)
        return found.count < 2 ? found.first : try rows(ranked, bind: bind).first
    }

    /// Every leaf, winner first.
    func leaves(docRow: Int64) throws(SQLiteError) -> [RevisionRow] {
        try rows(
            Query.leaves,
            bind: { statement throws(SQLiteError) in try statement.bind(docRow, at: 1) }
        )
    }

    /// One revision of a document.
    func revision(docRow: Int64, revID: String) throws(SQLiteError) -> RevisionRow? {
        try rows(
            Query.revision,
            bind: { statement throws(SQLiteError) in
                try statement.bind(docRow, at: 1)
                try statement.bind(revID, at: 2)
            }
        ).first
    }

    /// The revision with `sequence`.
    func revision(sequence: Int64) throws(SQLiteError) -> RevisionRow? {
        try rows(
            Query.bySequence,
            bind: { statement throws(SQLiteError) in try statement.bind(sequence, at: 1) }
        ).first
    }

    /// `revision` and its ancestors, newest first, at most `maximumHistoryLength` of them.
    func history(of revision: RevisionRow) throws(SQLiteError) -> [RevisionRow] {
        var chain = [revision]
        var parent = revision.parent
        while let sequence = parent, chain.count < limits.maximumHistoryLength,
            let row = try self.revision(sequence: sequence)
        {
            chain.append(row)
            parent = row.parent
        }
        return chain
    }

    /// A page of live documents' winning revisions, ordered by ID: after skipping `offset` live documents
    /// (``winners(offset:limit:descending:)``) or after the ID `after` (keyset paging, for a full scan).
    ///
    /// The page's documents are chosen first from the `docs` index (a document is live when it has a live leaf),
    /// and the winner is ranked for those documents only: a page never ranks every revision in the datastore.
    /// `CROSS JOIN` keeps that order: with a bound `LIMIT` SQLite 3.46 otherwise preferred walking all of `revs`
    /// through a Bloom filter on the page, once per page — a full scan of n documents cost O(n²/500)
    /// (DatastoreComplexityTests counts the work).
    private func winners(
        page: String,
        descending: Bool = false,
        bind: (Statement) throws(SQLiteError) -> Void
    ) throws(SQLiteError) -> [RevisionRow] {
        let statement = try connection.prepare(
            """
            SELECT sequence, doc_id, docid, revid, parent, current, deleted, json, attached FROM (
              SELECT \(Self.columns),
                row_number() OVER (PARTITION BY r.doc_id ORDER BY \(Self.winnerOrder)) AS n
              FROM (
                SELECT doc_id, docid FROM docs
                WHERE EXISTS (SELECT 1 FROM revs x WHERE x.doc_id = docs.doc_id AND x.current = 1 AND x.deleted = 0)
                \(page)
              ) d CROSS JOIN revs r ON r.doc_id = d.doc_id WHERE r.current = 1
            ) WHERE n = 1 ORDER BY docid \(descending ? "DESC" : "ASC")
            """
        )
        try bind(statement)
        return try Self.read(statement)
    }

    /// The winning, not-deleted revisions of documents ordered by ID: a page.
    func winners(offset: Int, limit: Int, descending: Bool) throws(SQLiteError) -> [RevisionRow] {
        let page = "ORDER BY docid \(descending ? "DESC" : "ASC") LIMIT ? OFFSET ?"
        return try winners(page: page, descending: descending) { statement throws(SQLiteError) in
            try statement.bind(Int64(limit), at: 1)
            try statement.bind(Int64(offset), at: 2)
        }
    }

    /// The live winners of the next `limit` documents (by ID) after `docID` (nil: from the start).
    func winners(after docID: String?, limit: Int) throws(SQLiteError) -> [RevisionRow] {
        try winners(page: "AND docid > ? ORDER BY docid LIMIT ?") { statement throws(SQLiteError) in
            try statement.bind(docID ?? "", at: 1)
            try statement.bind(Int64(limit), at: 2)
        }
    }

    /// How many documents have a live winning revision.
    func liveDocumentCount() throws(SQLiteError) -> Int {
        let statement = try connection.prepare(
            "SELECT count(DISTINCT doc_id) FROM revs WHERE current = 1 AND deleted = 0"
        )
        return try statement.step() ? Int(statement.int64(at: 0)) : 0
    }

    /// IDs of documents with more than one live leaf, ordered.
    func conflictedDocumentIDs(offset: Int, limit: Int) throws(SQLiteError) -> [String] {
        let statement = try connection.prepare(
            """
            SELECT d.docid FROM revs r JOIN docs d ON d.doc_id = r.doc_id
            WHERE r.current = 1 AND r.deleted = 0 GROUP BY r.doc_id HAVING count(*) > 1
            ORDER BY d.docid LIMIT ? OFFSET ?
            """
        )
        try statement.bind(Int64(limit), at: 1)
        try statement.bind(Int64(offset), at: 2)
        var ids: [String] = []
        while try statement.step() { ids.append(statement.text(at: 0) ?? "") }
        return ids
    }

    // MARK: Writing

    /// Adds a document row unless one exists: its row number, and whether it is new.
    func insertDocumentIfNew(_ docID: String) throws(SQLiteError) -> (row: Int64, isNew: Bool) {
        try connection.withStatement("INSERT INTO docs (docid) VALUES (?) ON CONFLICT (docid) DO NOTHING") {
            statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
            try statement.run()
        }
        if connection.changes == 1 { return (connection.lastInsertRowID, true) }
        guard let existing = try docRow(docID) else { throw SQLiteError(.corrupt, "a document row vanished") }
        return (existing, false)
    }

    /// Adds a revision; its parent, if it was a leaf, stops being one.
    @discardableResult
    func insertRevision(
        docRow: Int64,
        docID: String,
        revID: String,
        parent: RevisionRow?,
        isDeleted: Bool,
        json: Data?,
        isCurrent: Bool = true
    ) throws(SQLiteError) -> RevisionRow {
        if let parent, parent.isCurrent {
            try connection.withStatement("UPDATE revs SET current = 0 WHERE sequence = ?") {
                statement throws(SQLiteError) in
                try statement.bind(parent.sequence, at: 1)
                try statement.run()
            }
        }
        let sequence = try nextSequence()
        try connection.withStatement(
            "INSERT INTO revs (sequence, doc_id, revid, parent, current, deleted, json) VALUES (?, ?, ?, ?, ?, ?, ?)"
        ) { statement throws(SQLiteError) in
            try statement.bind(sequence, at: 1)
            try statement.bind(docRow, at: 2)
            try statement.bind(revID, at: 3)
            if let parent { try statement.bind(parent.sequence, at: 4) } else { try statement.bindNull(at: 4) }
            try statement.bind(isCurrent, at: 5)
            try statement.bind(isDeleted, at: 6)
            if let json { try statement.bind(json, at: 7) } else { try statement.bindNull(at: 7) }
            try statement.run()
        }
        return RevisionRow(
            sequence: sequence,
            docRow: docRow,
            docID: docID,
            revID: revID,
            parent: parent?.sequence,
            isCurrent: isCurrent,
            isDeleted: isDeleted,
            json: json
        )
    }

    /// The sequence of the next revision written: one more than the highest ever used — the table's largest, or the
    /// floor a purge of the largest left in `info` — read at the transaction's first revision and counted up from
    /// there (the write lock keeps every other writer out meanwhile). What AUTOINCREMENT did, without its
    /// `sqlite_sequence` row to read and write on every insert.
    private func nextSequence() throws(SQLiteError) -> Int64 {
        if let next = sequences.next {
            sequences.next = next < .max ? next + 1 : nil
            return next
        }
        let highest = try connection.withStatement(
            """
            SELECT max(coalesce((SELECT max(sequence) FROM revs), 0),
            coalesce((SELECT CAST(value AS INTEGER) FROM info WHERE key = ?), 0))
            """
        ) { statement throws(SQLiteError) in
            try statement.bind(Schema.sequenceFloorKey, at: 1)
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        // A file whose numbers reach the end cannot take another revision (AUTOINCREMENT's SQLITE_FULL).
        guard highest < .max - 1 else { throw SQLiteError(.corrupt, "the datastore has no revision numbers left") }
        sequences.next = highest + 2
        return highest + 1
    }

    /// Removes the bodies of non-leaf revisions; returns how many.
    func compactBodies() throws(SQLiteError) -> Int {
        try connection.execute("UPDATE revs SET json = NULL WHERE current = 0 AND json IS NOT NULL")
        return connection.changes
    }

    // MARK: Rows

    private func rows(
        _ sql: String,
        bind: (Statement) throws(SQLiteError) -> Void
    ) throws(SQLiteError) -> [RevisionRow] {
        try connection.withStatement(sql) { statement throws(SQLiteError) in
            try bind(statement)
            return try Self.read(statement)
        }
    }

    private static func read(_ statement: Statement) throws(SQLiteError) -> [RevisionRow] {
        var rows: [RevisionRow] = []
        while try statement.step() {
            rows.append(
                RevisionRow(
                    sequence: statement.int64(at: 0),
                    docRow: statement.int64(at: 1),
                    docID: statement.text(at: 2) ?? "",
                    revID: statement.text(at: 3) ?? "",
                    parent: statement.isNull(at: 4) ? nil : statement.int64(at: 4),
                    isCurrent: statement.int64(at: 5) != 0,
                    isDeleted: statement.int64(at: 6) != 0,
                    json: statement.isNull(at: 7) ? nil : statement.data(at: 7),
                    hasAttachments: statement.int64(at: 8) != 0
                )
            )
        }
        return rows
    }
}

/// The next revision sequence of one write transaction (`RevisionStore.nextSequence`): nil until its first revision.
/// Lives and dies with a `RevisionStore`, on the datastore's serial executor.
final class SequenceCounter {
    var next: Int64?
}
