// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import Logging
import SQLiteKit
import ServiceLifecycle
import StrongroomCore

/// The embedded default: one SQLite file (`strongroom.sqlite`, WAL) in the data directory.
///
/// WAL with `synchronous = NORMAL` keeps every acknowledged write across a crash of the process (SIGKILL); after a
/// power loss the last few commits may roll back. SQLite is sqlite-nio's vendored copy (prefixed symbols), never the
/// system library. One connection serves every request but record reads, which run in place on read-only
/// connections of their own; another one only checkpoints the log, in the background, while the database runs as a
/// service (``run()``).
public final class EmbeddedDatabase: ServerDatabase, Sendable {
    let connection: SQLiteConnection
    /// The records table, with the in-place reader and the checkpointer.
    let records: SQLiteRecordTable
    /// The store over this database.
    public let store: SQLServerStore

    /// Log pages after which the serving connection checkpoints inside a commit, as SQLite does by default at 1000:
    /// only when the background checkpoint is not running or falls behind (a log of about 64 MiB).
    static let fallbackCheckpointPages = 16_384

    private init(path: String, connection: SQLiteConnection, checkpointing: SQLiteConnection, logger: Logger) {
        let gate = ConnectionGate()
        let records = SQLiteRecordTable(
            path: path,
            connection: connection,
            checkpoints: checkpointing,
            gate: gate,
            logger: logger
        )
        self.connection = connection
        self.records = records
        self.store = SQLServerStore(database: connection.sql(), engine: .sqlite, records: records, gate: gate)
    }

    /// The database file in `dataDirectory` (whether a deployment exists there).
    public static func databasePath(in dataDirectory: String) -> String { dataDirectory + "/strongroom.sqlite" }

    /// Opens (creating if needed) the database in `dataDirectory` and migrates it.
    public static func open(dataDirectory: String, logger: Logger) async throws -> EmbeddedDatabase {
        try DataDirectory.prepare(dataDirectory, logger: logger)
        let path = databasePath(in: dataDirectory)
        // SQLite creates the -wal and -shm files with the database file's mode: create it owner-only first, and
        // tighten files an older version left behind.
        try DataDirectory.createOwnerOnly(path)
        for sibling in [path + "-wal", path + "-shm", path + "-journal"] { chmod(sibling, 0o600) }
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: databaseLogger(logger))
        let checkpointing: SQLiteConnection
        do {
            for pragma in [
                "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA busy_timeout = 5000",
                "PRAGMA wal_autocheckpoint = \(fallbackCheckpointPages)",
            ] {
                _ = try await connection.query(pragma)
            }
            checkpointing = try await SQLiteConnection.open(storage: .file(path: path), logger: databaseLogger(logger))
        } catch {
            try await connection.close()
            throw error
        }
        let database = EmbeddedDatabase(
            path: path,
            connection: connection,
            checkpointing: checkpointing,
            logger: logger
        )
        do {
            _ = try await checkpointing.query("PRAGMA busy_timeout = 5000")
            try await database.store.migrate()
        } catch {
            try await database.close()
            throw error
        }
        chmod(path, 0o600)
        return database
    }

    /// Closes the database's connections.
    public func close() async throws {
        do { try await records.close() } catch {
            try await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Checkpoints the log in the background until graceful shutdown (or cancellation), then closes the database.
    public func run() async throws {
        // Cancellation also means "shut down".
        await cancelWhenGracefulShutdown { await self.records.checkpointer.run() }
        // Close in a task of its own, so that a cancelled service group still closes the connection.
        try await Task { try await self.close() }.value
    }
}
