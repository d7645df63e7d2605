// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

/// One open datastore: a SQLCipher database (or a plain one, when opened unencrypted) behind a serial executor, so
/// every database call runs on one worker thread at a time and never on the cooperative pool.
///
/// Open it with ``DatastoreManager``. Documents, revisions and queries arrive in the next steps of the datastore
/// work; today a datastore knows its name, whether it is encrypted, and its schema version.
public final class Datastore: Sendable {
    /// The datastore's name within its manager's directory.
    public let name: String
    /// Whether its pages are encrypted (SQLCipher with a raw key derived from the data key).
    public let isEncrypted: Bool

    private let executor: BlockingExecutor
    private let database: DatabaseBox

    init(name: String, isEncrypted: Bool, connection: Connection) {
        self.name = name
        self.isEncrypted = isEncrypted
        self.executor = BlockingExecutor(label: "strongroom.datastore.\(name)", serial: true)
        self.database = DatabaseBox(connection: connection)
    }

    /// Runs `body` with the connection on the datastore's serial executor.
    func withConnection<R: Sendable>(
        _ body: @escaping @Sendable (Connection) throws(SQLiteError) -> R
    ) async throws(DatastoreError) -> R {
        let database = database
        do {
            return try await executor.run { _ throws(SQLiteError) in try body(database.connection) }
        } catch {
            throw DatastoreError(.storage, "the database failed: \(error.code)", underlying: error)
        }
    }

    /// The schema version (SQLite's `user_version`).
    public func schemaVersion() async throws(DatastoreError) -> Int {
        try await withConnection { connection throws(SQLiteError) in
            Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
        }
    }
}

/// The connection, reachable only through ``Datastore/withConnection(_:)``.
///
/// `@unchecked Sendable`: the connection is used only by jobs of the datastore's serial executor, one at a time.
final class DatabaseBox: @unchecked Sendable {
    let connection: Connection
    init(connection: Connection) { self.connection = connection }
}
