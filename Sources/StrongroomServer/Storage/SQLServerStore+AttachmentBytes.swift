// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
package import StrongroomWire

/// The attachment bytes of each replicated type, kept as a running total.
///
/// A replicated type (one datastore or channel, every writer's records together) holds at most
/// ``ServerLimits/syncAttachmentBytesPerType`` bytes of attachment bodies. Adding up the declared sizes of the type's
/// file records on every upload cost one row per file; the total is now one row of `sync_attachment_bytes`, kept by
/// triggers on `records` (insert, delete, and an update of `file_meta` or `type`), so every path that adds or
/// removes a file record — an upload, a record deleted, a client removed, an abandoned upload swept — keeps it
/// without knowing about it. A new file record is inserted and checked against the caps in one transaction.
extension SQLServerStore {
    /// Migration step 15: the totals table, filled from the file records already stored, and its triggers. Only
    /// types starting `sr1.` (replicated types; the prefix is written out, a released step never changes) have a
    /// row, and a total that falls to zero removes its row. The partial index step 13 made for adding up goes.
    var attachmentBytesStep: [String] {
        let size: (String) -> String =
            switch engine {
            case .sqlite: { "COALESCE(json_extract(\($0).file_meta, '$.size'), 0)" }
            case .postgres: { "COALESCE(CAST(CAST(\($0).file_meta AS json) ->> 'size' AS BIGINT), 0)" }
            }
        let replicated: (String) -> String = { "\($0).file_meta IS NOT NULL AND substr(\($0).type, 1, 4) = 'sr1.'" }
        let table = "CREATE TABLE sync_attachment_bytes (type TEXT PRIMARY KEY, bytes BIGINT NOT NULL)"
        let unused = "DROP INDEX records_type_files"
        let backfill = """
            INSERT INTO sync_attachment_bytes (type, bytes)
            SELECT r.type, CAST(SUM(\(size("r"))) AS BIGINT) FROM records r WHERE \(replicated("r")) GROUP BY r.type
            """
        let subtract = """
            UPDATE sync_attachment_bytes SET bytes = bytes - \(size("OLD")) WHERE type = OLD.type;
            DELETE FROM sync_attachment_bytes WHERE type = OLD.type AND bytes = 0;
            """
        switch engine {
        case .sqlite:
            // The upsert's SELECT has a WHERE clause, as SQLite's grammar asks inside a trigger.
            let add = """
                INSERT INTO sync_attachment_bytes (type, bytes) SELECT NEW.type, \(size("NEW"))
                WHERE \(replicated("NEW")) ON CONFLICT (type) DO UPDATE SET bytes = bytes + excluded.bytes;
                """
            return [
                table, backfill, unused,
                """
                CREATE TRIGGER records_attachment_bytes_insert AFTER INSERT ON records
                WHEN NEW.file_meta IS NOT NULL BEGIN \(add) END
                """,
                """
                CREATE TRIGGER records_attachment_bytes_delete AFTER DELETE ON records
                WHEN OLD.file_meta IS NOT NULL BEGIN \(subtract) END
                """,
                """
                CREATE TRIGGER records_attachment_bytes_update AFTER UPDATE OF file_meta, type ON records
                BEGIN \(subtract) \(add) END
                """,
            ]
        case .postgres:
            return [
                table, backfill, unused,
                """
                CREATE FUNCTION records_attachment_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP <> 'INSERT' AND OLD.file_meta IS NOT NULL THEN
                        \(subtract)
                    END IF;
                    IF TG_OP <> 'DELETE' AND \(replicated("NEW")) THEN
                        INSERT INTO sync_attachment_bytes (type, bytes) VALUES (NEW.type, \(size("NEW")))
                        ON CONFLICT (type) DO UPDATE SET bytes = sync_attachment_bytes.bytes + EXCLUDED.bytes;
                    END IF;
                    RETURN NULL;
                END $$
                """,
                // Three triggers, so a record without a file (nearly every one) runs no function at all.
                """
                CREATE TRIGGER records_attachment_bytes_insert AFTER INSERT ON records FOR EACH ROW
                WHEN (NEW.file_meta IS NOT NULL) EXECUTE FUNCTION records_attachment_bytes()
                """,
                """
                CREATE TRIGGER records_attachment_bytes_delete AFTER DELETE ON records FOR EACH ROW
                WHEN (OLD.file_meta IS NOT NULL) EXECUTE FUNCTION records_attachment_bytes()
                """,
                """
                CREATE TRIGGER records_attachment_bytes_update AFTER UPDATE OF file_meta, type ON records FOR EACH ROW
                EXECUTE FUNCTION records_attachment_bytes()
                """,
            ]
        }
    }

    /// Migration step 16: the totals count committed files only (a pending file's declared size held the room for
    /// its 24-hour pending lifetime, so a member could declare a large file, upload nothing, and block everyone's
    /// attachments). The triggers are made again with the pending flag in their conditions (an update of `pending`,
    /// a commit, now adds), and the totals are counted again from the committed file records.
    var committedAttachmentBytesStep: [String] {
        let size: (String) -> String =
            switch engine {
            case .sqlite: { "COALESCE(json_extract(\($0).file_meta, '$.size'), 0)" }
            case .postgres: { "COALESCE(CAST(CAST(\($0).file_meta AS json) ->> 'size' AS BIGINT), 0)" }
            }
        let counted: (String) -> String = {
            "\($0).file_meta IS NOT NULL AND NOT \($0).pending AND substr(\($0).type, 1, 4) = 'sr1.'"
        }
        let recount = [
            "DELETE FROM sync_attachment_bytes",
            """
            INSERT INTO sync_attachment_bytes (type, bytes)
            SELECT r.type, CAST(SUM(\(size("r"))) AS BIGINT) FROM records r WHERE \(counted("r")) GROUP BY r.type
            """,
        ]
        let subtract = """
            UPDATE sync_attachment_bytes SET bytes = bytes - \(size("OLD")) WHERE type = OLD.type;
            DELETE FROM sync_attachment_bytes WHERE type = OLD.type AND bytes = 0;
            """
        let drops = [
            "DROP TRIGGER records_attachment_bytes_insert" + (engine == .postgres ? " ON records" : ""),
            "DROP TRIGGER records_attachment_bytes_delete" + (engine == .postgres ? " ON records" : ""),
            "DROP TRIGGER records_attachment_bytes_update" + (engine == .postgres ? " ON records" : ""),
        ]
        switch engine {
        case .sqlite:
            let add = """
                INSERT INTO sync_attachment_bytes (type, bytes) SELECT NEW.type, \(size("NEW"))
                WHERE \(counted("NEW")) ON CONFLICT (type) DO UPDATE SET bytes = bytes + excluded.bytes;
                """
            let subtractCounted = """
                UPDATE sync_attachment_bytes SET bytes = bytes - \(size("OLD"))
                WHERE type = OLD.type AND OLD.file_meta IS NOT NULL AND NOT OLD.pending;
                DELETE FROM sync_attachment_bytes WHERE type = OLD.type AND bytes = 0;
                """
            return drops + recount + [
                """
                CREATE TRIGGER records_attachment_bytes_insert AFTER INSERT ON records
                WHEN NEW.file_meta IS NOT NULL AND NOT NEW.pending BEGIN \(add) END
                """,
                """
                CREATE TRIGGER records_attachment_bytes_delete AFTER DELETE ON records
                WHEN OLD.file_meta IS NOT NULL AND NOT OLD.pending BEGIN \(subtract) END
                """,
                """
                CREATE TRIGGER records_attachment_bytes_update AFTER UPDATE OF file_meta, type, pending ON records
                BEGIN \(subtractCounted) \(add) END
                """,
            ]
        case .postgres:
            return drops + recount + [
                """
                CREATE OR REPLACE FUNCTION records_attachment_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP <> 'INSERT' AND OLD.file_meta IS NOT NULL AND NOT OLD.pending THEN
                        \(subtract)
                    END IF;
                    IF TG_OP <> 'DELETE' AND \(counted("NEW")) THEN
                        INSERT INTO sync_attachment_bytes (type, bytes) VALUES (NEW.type, \(size("NEW")))
                        ON CONFLICT (type) DO UPDATE SET bytes = sync_attachment_bytes.bytes + EXCLUDED.bytes;
                    END IF;
                    RETURN NULL;
                END $$
                """,
                """
                CREATE TRIGGER records_attachment_bytes_insert AFTER INSERT ON records FOR EACH ROW
                WHEN (NEW.file_meta IS NOT NULL AND NOT NEW.pending) EXECUTE FUNCTION records_attachment_bytes()
                """,
                """
                CREATE TRIGGER records_attachment_bytes_delete AFTER DELETE ON records FOR EACH ROW
                WHEN (OLD.file_meta IS NOT NULL AND NOT OLD.pending) EXECUTE FUNCTION records_attachment_bytes()
                """,
                """
                CREATE TRIGGER records_attachment_bytes_update AFTER UPDATE OF file_meta, type, pending ON records
                FOR EACH ROW EXECUTE FUNCTION records_attachment_bytes()
                """,
            ]
        }
    }

    /// The declared sizes of `type`'s file records added up: its row of `sync_attachment_bytes`, 0 without one.
    static func syncAttachmentBytes(in database: any SQLDatabase, type: String) async throws -> Int64 {
        try await database.raw(syncAttachmentBytesSQL(type: type)).first()?.decode(column: "bytes", as: Int64.self)
            ?? 0
    }

    /// The statement of ``syncAttachmentBytes(in:type:)``: one row by primary key.
    static func syncAttachmentBytesSQL(type: String) -> SQLQueryString {
        "SELECT bytes FROM sync_attachment_bytes WHERE type = \(bind: type)"
    }

    package func insertReplicatedRecord(
        _ text: StoredRecordText,
        maximumPerWriter: Int,
        maximumBytes: Int64
    ) async throws -> StoredRecordText {
        let row = try recordRow(text)
        let names = RecordColumn.inserted.map(\.name).joined(separator: ", ")
        let values = RecordColumn.inserted.map { Self.bindable(row[$0]) }
        let index = try await database.transaction { [engine] session in
            if engine == .postgres {
                // Writers of one type's records take turns here, so two writes cannot both fit the last room.
                try await session.raw(Self.writerTypeLockSQL(type: row.type, writer: row.writerID)).run()
            }
            // A file record's trigger adds to the type's total (on PostgreSQL, locking its row until the commit).
            let inserted = try await session.raw(
                "INSERT INTO records (\(unsafeRaw: names)) VALUES (\(binds: values)) RETURNING idx"
            ).first()
            let held = try await Self.syncRecordCount(in: session, type: row.type, writer: row.writerID)
            guard held <= maximumPerWriter else {
                throw ServerError.tooLarge("a writer keeps at most \(maximumPerWriter) records of one replicated type")
            }
            // A pending file adds nothing yet (its bytes count when committed): it fits if it would fit now.
            if let declared = text.record.fileMeta?.size,
                try await Self.syncAttachmentBytes(in: session, type: row.type) + (row.isPending ? declared : 0)
                    > maximumBytes
            {
                throw ServerError.tooLarge("a replicated datastore holds at most \(maximumBytes) bytes of attachments")
            }
            guard let index = try inserted?.decode(column: "idx", as: Int64.self) else {
                throw ServerError.conflict("a record was not stored")
            }
            return index
        }
        var stored = text
        stored.record.index = index
        return stored
    }

    package func commitReplicatedFile(
        id: RecordID,
        lastModified: Timestamp,
        maximumBytes: Int64
    ) async throws -> StoredRecord? {
        try await database.transaction { session in
            // The trigger adds the file's bytes to its type's total (on PostgreSQL, locking the total's row until the
            // commit, so two commits of one type take turns and cannot both take the last room).
            guard
                let row = try await session.raw(
                    """
                    UPDATE records SET pending = \(bind: false), last_modified = \(bind: lastModified.microseconds)
                    WHERE record_id = \(bind: id.description) AND pending = \(bind: true) RETURNING *
                    """
                ).first()
            else { return nil }
            let record = try self.decodeRecord(row)
            guard try await Self.syncAttachmentBytes(in: session, type: record.type) <= maximumBytes else {
                throw ServerError.tooLarge("a replicated datastore holds at most \(maximumBytes) bytes of attachments")
            }
            return record
        }
    }

    /// PostgreSQL: a transaction's lock on one writer's records of one type (a 64-bit hash of both; a collision
    /// only makes two writers take turns).
    static func writerTypeLockSQL(type: String, writer: String) -> SQLQueryString {
        "SELECT pg_advisory_xact_lock(hashtextextended(\(bind: writer + "/" + type), 0))"
    }
}
