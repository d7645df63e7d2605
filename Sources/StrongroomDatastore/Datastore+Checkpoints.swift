// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomSQLite

/// Replication checkpoints, kept inside the encrypted database (its `info` table, under `replication.` keys), so
/// they are as private as the documents and go wherever the datastore goes. Package API for `StrongroomSync`.
extension Datastore {
    static let checkpointPrefix = "replication."

    /// The checkpoint saved under `id`, or nil when there is none.
    package func checkpoint(_ id: String) async throws(DatastoreError) -> String? {
        let key = Self.checkpointPrefix + id
        return try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) -> String? in
                let statement = try store.connection.prepare("SELECT value FROM info WHERE key = ?")
                try statement.bind(key, at: 1)
                return try statement.step() ? statement.text(at: 0) : nil
            }
        }
    }

    /// Saves `value` as the checkpoint `id`, durably (one write transaction).
    package func setCheckpoint(_ id: String, _ value: String) async throws(DatastoreError) {
        let key = Self.checkpointPrefix + id
        try await write { store throws(DatastoreError) in try store.saveCheckpoint(key, value) }
    }
}

extension Datastore {
    /// Removes every checkpoint whose ID starts with `prefix` (one write transaction).
    package func removeCheckpoints(withPrefix prefix: String) async throws(DatastoreError) {
        let pattern = Self.checkpointPrefix + prefix
        try await write { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in
                let statement = try store.connection.prepare("DELETE FROM info WHERE substr(key, 1, ?) = ?")
                try statement.bind(Int64(pattern.utf8.count), at: 1)
                try statement.bind(pattern, at: 2)
                try statement.run()
            }
        }
    }
}

extension RevisionStore {
    /// Saves a checkpoint row, inside the caller's transaction.
    func saveCheckpoint(_ key: String, _ value: String) throws(DatastoreError) {
        try sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                "INSERT INTO info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            )
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }
}
