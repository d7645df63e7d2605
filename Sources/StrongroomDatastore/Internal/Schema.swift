// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomSQLite

/// The datastore schema, as numbered steps recorded in `user_version`; a released step is never edited.
enum Schema {
    static let steps: [[String]] = [
        [
            // The datastore's identity (bound into attachment encryption later) and CDTDatastore's core tables.
            "CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "INSERT INTO info (key, value) VALUES ('datastore_id', lower(hex(randomblob(16))))",
            "CREATE TABLE docs (doc_id INTEGER PRIMARY KEY, docid TEXT UNIQUE NOT NULL)",
            """
            CREATE TABLE revs (sequence INTEGER PRIMARY KEY AUTOINCREMENT, doc_id INTEGER NOT NULL REFERENCES docs,
            revid TEXT NOT NULL, parent INTEGER REFERENCES revs(sequence), current BOOLEAN NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT 0, json BLOB, UNIQUE (doc_id, revid))
            """,
            "CREATE INDEX revs_current ON revs (doc_id, current)",
        ],
        [
            // A document's leaves are found through UNIQUE (doc_id, revid): one B-tree less to update per write.
            "DROP INDEX revs_current"
        ],
        [
            // Attachments per revision; bodies live in files with random names under `attachments/`.
            """
            CREATE TABLE attachments (sequence INTEGER NOT NULL REFERENCES revs(sequence), name TEXT NOT NULL,
            content_type TEXT NOT NULL, length INTEGER NOT NULL, digest TEXT NOT NULL, revpos INTEGER NOT NULL,
            file TEXT NOT NULL, PRIMARY KEY (sequence, name))
            """
        ],
        [
            // Query indexes (CDTQ's, inside this encrypted database rather than a second file). A JSON index keeps
            // one row per document, field and array element: the value's type rank (0 missing, 1 null, 2 bool,
            // 3 number, 4 string, 5 array, 6 object), the scalar value, and the whole value's rank for sorting.
            // Rows per field, not per index, so several array fields never multiply. Indexes catch up lazily from
            // `last_sequence`. A text index is an FTS5 table `query_text` made when it is defined.
            """
            CREATE TABLE query_indexes (index_id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, type TEXT NOT NULL,
            fields TEXT NOT NULL, tokenizer TEXT, last_sequence INTEGER NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE query_values (index_id INTEGER NOT NULL, field INTEGER NOT NULL, doc_id INTEGER NOT NULL,
            rank INTEGER NOT NULL, value, whole INTEGER NOT NULL)
            """,
            "CREATE INDEX query_values_lookup ON query_values (index_id, field, rank, value)",
            // Array elements alone, for several conditions on one array field (each met by any element).
            "CREATE INDEX query_values_arrays ON query_values (index_id, field, rank, value) WHERE whole = 5",
            "CREATE INDEX query_values_doc ON query_values (doc_id, index_id)",
        ],
        [
            // Revisions a replicated purge removed: a replica that had not heard of the purge may send them again,
            // and a pull does not take them back.
            "CREATE TABLE purged_revisions (docid TEXT NOT NULL, revid TEXT NOT NULL, PRIMARY KEY (docid, revid)) WITHOUT ROWID"
        ],
        [
            // Revisions without AUTOINCREMENT, whose `sqlite_sequence` row cost a B-tree read and write on every
            // insert. Sequences still only grow: a write numbers its revisions from the highest sequence ever used
            // (`RevisionStore.nextSequence`) — the table's largest, or `sequence_floor` once a purge removed the
            // largest. The floor starts at what AUTOINCREMENT had handed out. SQLite's table rebuild, with foreign
            // keys off (`migrate`) and checked before the commit.
            """
            INSERT INTO info (key, value) SELECT 'sequence_floor', CAST(seq AS TEXT) FROM sqlite_sequence
            WHERE name = 'revs' AND seq > 0
            """,
            """
            CREATE TABLE revs_rebuilt (sequence INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES docs,
            revid TEXT NOT NULL, parent INTEGER REFERENCES revs(sequence), current BOOLEAN NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT 0, json BLOB, UNIQUE (doc_id, revid))
            """,
            """
            INSERT INTO revs_rebuilt (sequence, doc_id, revid, parent, current, deleted, json)
            SELECT sequence, doc_id, revid, parent, current, deleted, json FROM revs ORDER BY sequence
            """,
            "DROP TABLE revs",
            "ALTER TABLE revs_rebuilt RENAME TO revs",
            "DELETE FROM sqlite_sequence WHERE name = 'revs'",
        ],
    ]

    /// The `info` key of the highest sequence a purge removed (or AUTOINCREMENT handed out before step 6).
    static let sequenceFloorKey = "sequence_floor"

    /// Applies every step above the stored version, each in a transaction with its version bump. Foreign keys are
    /// off meanwhile (a table rebuild drops a table others refer to; SQLite ignores the setting inside a
    /// transaction) and each step is checked against them before it commits.
    static func migrate(_ connection: Connection) throws(SQLiteError) {
        let current = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard current < steps.count else { return }
        let enforced = try connection.scalarText("PRAGMA foreign_keys") == "1"
        try connection.execute("PRAGMA foreign_keys = OFF")
        do throws(SQLiteError) {
            for (index, step) in steps.enumerated() where index + 1 > current {
                try connection.transaction(mapping: { $0 }) { () throws(SQLiteError) in
                    for statement in step { try connection.execute(statement) }
                    if try connection.scalarText("PRAGMA foreign_key_check") != nil {
                        throw SQLiteError(.corrupt, "a revision or attachment refers to a row that does not exist")
                    }
                    try connection.execute("PRAGMA user_version = \(index + 1)")
                }
            }
        } catch {
            // The step's error is the one to report.
            if enforced { try? connection.execute("PRAGMA foreign_keys = ON") }
            throw error
        }
        // Not silently: a datastore must not go on without its foreign keys.
        if enforced { try connection.execute("PRAGMA foreign_keys = ON") }
    }

    /// The attachment files' key: `HKDF-SHA256(attachment secret, "attachments")`, where the secret is 32 random
    /// bytes kept in `info` — inside the encrypted database, so a rekey re-protects it without touching any file.
    /// Created on first use.
    static func attachmentKey(_ connection: Connection) throws(SQLiteError) -> SecureBytes {
        var secret = try secretBytes(connection)
        if secret == nil {
            let fresh = SecureRandom.bytes(count: 32)
            let statement = try connection.prepare("INSERT INTO info (key, value) VALUES ('attachment_secret', ?)")
            try fresh.withUnsafeBytes { bytes throws(SQLiteError) in try statement.bind(Data(bytes), at: 1) }
            try statement.run()
            secret = fresh
        }
        guard let secret, let key = try? HKDFSHA256.deriveKey(from: secret, label: "attachments") else {
            throw SQLiteError(.corrupt, "the attachment secret is damaged")
        }
        return key
    }

    private static func secretBytes(_ connection: Connection) throws(SQLiteError) -> SecureBytes? {
        let statement = try connection.prepare("SELECT value FROM info WHERE key = 'attachment_secret'")
        guard try statement.step() else { return nil }
        var bytes = Array(statement.data(at: 0))
        defer { Wipe.bytes(&bytes) }
        guard bytes.count == 32 else { throw SQLiteError(.corrupt, "the attachment secret is damaged") }
        return SecureBytes(copying: bytes)
    }
}
