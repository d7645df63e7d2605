// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

/// An attachment row: the metadata and the body file's name.
struct AttachmentRow: Sendable {
    var attachment: Attachment
    var file: String
}

extension RevisionStore {
    /// The public revision for `row` with its attachments; `body`, when given, saves decoding the stored JSON.
    func load(_ row: RevisionRow, body: [String: JSONValue]? = nil) throws(DatastoreError) -> DocumentRevision {
        var revision = try row.revision(body: body)
        guard row.hasAttachments != false else { return revision }
        let rows = try sql { () throws(SQLiteError) in try attachmentRows(sequence: row.sequence) }
        for row in rows { revision.attachments[row.attachment.name] = row.attachment }
        return revision
    }

    /// The attachments of the revision with `sequence`.
    func attachmentRows(sequence: Int64) throws(SQLiteError) -> [AttachmentRow] {
        try connection.withStatement(
            "SELECT name, content_type, length, digest, revpos, file FROM attachments WHERE sequence = ?"
        ) { statement throws(SQLiteError) in
            try statement.bind(sequence, at: 1)
            var rows: [AttachmentRow] = []
            while try statement.step() {
                rows.append(
                    AttachmentRow(
                        attachment: Attachment(
                            name: statement.text(at: 0) ?? "",
                            contentType: statement.text(at: 1) ?? "",
                            length: statement.int64(at: 2),
                            digest: statement.text(at: 3) ?? "",
                            revpos: Int(clamping: statement.int64(at: 4))
                        ),
                        file: statement.text(at: 5) ?? ""
                    )
                )
            }
            return rows
        }
    }

    /// Copies the attachments of `parent` to `child`, except `removing` (CDTDatastore carries them forward).
    func carryAttachments(from parent: Int64, to child: Int64, removing: Set<String> = []) throws(SQLiteError) {
        for row in try attachmentRows(sequence: parent) where !removing.contains(row.attachment.name) {
            try insertAttachment(row, sequence: child)
        }
    }

    /// Adds (or replaces) an attachment of the revision with `sequence`.
    func insertAttachment(_ row: AttachmentRow, sequence: Int64) throws(SQLiteError) {
        try connection.withStatement(
            """
            INSERT OR REPLACE INTO attachments (sequence, name, content_type, length, digest, revpos, file)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        ) { statement throws(SQLiteError) in
            try statement.bind(sequence, at: 1)
            try statement.bind(row.attachment.name, at: 2)
            try statement.bind(row.attachment.contentType, at: 3)
            try statement.bind(row.attachment.length, at: 4)
            try statement.bind(row.attachment.digest, at: 5)
            try statement.bind(Int64(row.attachment.revpos), at: 6)
            try statement.bind(row.file, at: 7)
            try statement.run()
        }
    }

    /// Every body file some revision still refers to.
    func referencedAttachmentFiles() throws(SQLiteError) -> Set<String> {
        let statement = try connection.prepare("SELECT DISTINCT file FROM attachments")
        var files: Set<String> = []
        while try statement.step() { if let file = statement.text(at: 0) { files.insert(file) } }
        return files
    }

    /// Drops the attachments of revisions that are no longer leaves (compaction).
    func compactAttachments() throws(SQLiteError) {
        try connection.execute(
            "DELETE FROM attachments WHERE sequence IN (SELECT sequence FROM revs WHERE current = 0)"
        )
    }

    /// The datastore's random identity, bound into every attachment file.
    func datastoreID() throws(SQLiteError) -> String {
        try connection.scalarText("SELECT value FROM info WHERE key = 'datastore_id'") ?? ""
    }
}
