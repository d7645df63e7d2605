// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCore
package import StrongroomWire

/// Notes, with their quotas, views and expiry.
extension SQLServerStore {
    // MARK: Notes

    package func insertNote(_ note: StoredNote, quota: NoteQuota) async throws -> NoteInsertion {
        // Expired notes are gone for readers already; delete them so that they count against no quota.
        try await database.raw("DELETE FROM notes WHERE expires_at <= \(bind: note.created.microseconds)").run()
        // One statement: the quotas (counts and bytes, per writer key and in all) are checked and the note inserted
        // atomically.
        let body = try json(note.body)
        guard body.utf8.count <= quota.bytesPerNote else { return .tooLarge }
        let size = Int64(body.utf8.count)
        var sql: SQLQueryString = """
            INSERT INTO notes (note_id, id_string, body, created, views, max_views, expires_at, recipient_signing_key,
            writer_signing_key, size, source) SELECT \(bind: note.noteID), \(bind: note.idString), \(bind: body),
            \(bind: note.created.microseconds), \(bind: note.views), \(bind: note.maximumViews),
            \(bind: note.expiresAt?.microseconds), \(bind: note.recipientSigningKey), \(bind: note.writerSigningKey),
            \(bind: size), \(bind: note.source)
            WHERE (SELECT COUNT(*) FROM notes WHERE writer_signing_key = \(bind: note.writerSigningKey))
            < \(bind: quota.perKey) AND (SELECT COUNT(*) FROM notes) < \(bind: quota.total)
            AND (SELECT COALESCE(SUM(size), 0) FROM notes WHERE writer_signing_key = \(bind: note.writerSigningKey))
            + \(bind: size) <= \(bind: quota.bytesPerKey)
            AND (SELECT COALESCE(SUM(size), 0) FROM notes) + \(bind: size) <= \(bind: quota.bytesTotal)
            """
        if let source = note.source {
            // An anonymous writer: its source's share, and the anonymous notes' half of the server's.
            sql += """
                 AND (SELECT COUNT(*) FROM notes WHERE source = \(bind: source)) < \(bind: quota.perSource)
                AND (SELECT COUNT(*) FROM notes WHERE source IS NOT NULL) < \(bind: quota.total / 2)
                AND (SELECT COALESCE(SUM(size), 0) FROM notes WHERE source IS NOT NULL) + \(bind: size)
                <= \(bind: quota.bytesTotal / 2)
                """
        }
        sql += " ON CONFLICT DO NOTHING RETURNING note_id"
        let inserted = try await database.raw(sql).first()
        if inserted != nil { return .inserted }
        if let name = note.idString,
            try await database.raw("SELECT note_id FROM notes WHERE id_string = \(bind: name)").first() != nil
        {
            return .nameTaken
        }
        return .quotaExceeded
    }

    package func viewNote(_ lookup: NoteLookup, recipientSigningKey: String, now: Timestamp) async throws -> StoredNote?
    {
        // One statement counts the view and refuses exhausted or expired notes.
        var sql: SQLQueryString = "UPDATE notes SET views = views + 1 WHERE "
        switch lookup {
        case .id(let id): sql += "note_id = \(bind: id)"
        case .name(let name): sql += "id_string = \(bind: name)"
        }
        sql += """
             AND recipient_signing_key = \(bind: recipientSigningKey) AND (max_views < 1 OR views < max_views)
            AND (expires_at IS NULL OR expires_at > \(bind: now.microseconds)) RETURNING *
            """
        let note = try await database.raw(sql).first().map { row in
            StoredNote(
                noteID: try row.decode(column: "note_id", as: String.self),
                idString: try row.decode(column: "id_string", as: String?.self),
                body: try decodeJSON([String: JSONValue].self, try row.decode(column: "body", as: String.self)),
                created: Timestamp(microseconds: try row.decode(column: "created", as: Int64.self)),
                views: try row.decode(column: "views", as: Int64.self),
                maximumViews: try row.decode(column: "max_views", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64?.self).map(Timestamp.init(microseconds:)),
                recipientSigningKey: try row.decode(column: "recipient_signing_key", as: String.self),
                writerSigningKey: try row.decode(column: "writer_signing_key", as: String?.self) ?? ""
            )
        }
        if let note, note.maximumViews > 0, note.views >= note.maximumViews {
            // That was the last view: nothing is kept for a note nobody can read any more.
            try await database.raw("DELETE FROM notes WHERE note_id = \(bind: note.noteID)").run()
        }
        return note
    }
}
