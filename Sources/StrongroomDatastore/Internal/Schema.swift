// Strongroom — SPDX-License-Identifier: Apache-2.0
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
    ]

    /// Applies every step above the stored version, each in a transaction with its version bump.
    static func migrate(_ connection: Connection) throws(SQLiteError) {
        let current = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
        for (index, step) in steps.enumerated() where index + 1 > current {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                for statement in step { try connection.execute(statement) }
                try connection.execute("PRAGMA user_version = \(index + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")  // the original error is the one to report
                throw error
            }
        }
    }
}
