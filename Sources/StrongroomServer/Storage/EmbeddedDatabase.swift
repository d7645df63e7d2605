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
/// system library.
public final class EmbeddedDatabase: ServerDatabase, Sendable {
    let connection: SQLiteConnection
    /// The store over this database.
    public let store: SQLServerStore

    private init(connection: SQLiteConnection) {
        self.connection = connection
        self.store = SQLServerStore(
            database: connection.sql(),
            engine: .sqlite,
            prepared: SQLiteRecordStatements(connection: connection)
        )
    }

    /// Opens (creating if needed) the database in `dataDirectory` and migrates it.
    public static func open(dataDirectory: String, logger: Logger) async throws -> EmbeddedDatabase {
        try DataDirectory.prepare(dataDirectory, logger: logger)
        let path = dataDirectory + "/strongroom.sqlite"
        // SQLite creates the -wal and -shm files with the database file's mode: create it owner-only first, and
        // tighten files an older version left behind.
        try DataDirectory.createOwnerOnly(path)
        for sibling in [path + "-wal", path + "-shm", path + "-journal"] { chmod(sibling, 0o600) }
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: databaseLogger(logger))
        let database = EmbeddedDatabase(connection: connection)
        do {
            for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA busy_timeout = 5000"] {
                _ = try await connection.query(pragma)
            }
            try await database.store.migrate()
        } catch {
            try await connection.close()
            throw error
        }
        chmod(path, 0o600)
        return database
    }

    /// Closes the connection.
    public func close() async throws { try await connection.close() }

    /// Waits for graceful shutdown (or cancellation), then closes the database.
    public func run() async throws {
        try? await gracefulShutdown()  // cancellation also means "shut down"
        // Close in a task of its own, so that a cancelled service group still closes the connection.
        try await Task { try await self.close() }.value
    }
}
