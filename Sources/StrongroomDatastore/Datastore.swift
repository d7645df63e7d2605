// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomSQLite

/// One open datastore (CDTDatastore's `CDTDatastore`): JSON documents with revision trees in a SQLCipher database
/// (or a plain one, when opened unencrypted), behind a serial executor, so every database call runs on one worker
/// thread at a time and never on the cooperative pool.
///
/// Open it with ``DatastoreManager``. Documents: ``createDocument(id:body:)``, ``document(id:rev:)``,
/// ``update(from:body:)``, ``delete(from:)``, ``bulkWrite(_:)``; conflicts: ``forceInsert(docID:history:body:isDeleted:)``,
/// ``conflictedDocumentIDs(offset:limit:)``, ``resolveConflicts(docID:resolver:)``; maintenance: ``compact()``,
/// ``rekey(to:)``, ``close()``; changes: ``changes(since:limit:)``, ``changeStream(since:pollInterval:)``.
///
/// Several `Datastore` values (in one process or several) may open the same datastore: readers never wait (WAL),
/// and one writer at a time holds the lock — another waits up to ``DatastoreLimits/lockTimeout``, then fails with
/// ``DatastoreError/Code/busy``.
public final class Datastore: Sendable {
    /// The datastore's name within its manager's directory.
    public let name: String
    /// Whether its pages are encrypted (SQLCipher with a raw key derived from the data key).
    public let isEncrypted: Bool
    /// The bounds it enforces.
    public let limits: DatastoreLimits

    /// The serial executor every database call runs on (internal for tests).
    let executor: BlockingExecutor
    private let database: DatabaseBox
    /// Wakes ``changeStream(since:pollInterval:)`` followers after each commit.
    let notifier = ChangeNotifier()

    /// The folder of attachment body files.
    let attachmentFolder: URL
    /// `HKDF-SHA256(data key, "attachments")`, nil for an unencrypted datastore.
    let attachmentKey: SecureBytes?

    init(
        name: String,
        folder: URL,
        attachmentKey: SecureBytes?,
        connection: Connection,
        limits: DatastoreLimits
    ) {
        self.name = name
        self.attachmentFolder = folder.appending(path: "attachments", directoryHint: .isDirectory)
        self.attachmentKey = attachmentKey
        self.isEncrypted = attachmentKey != nil
        self.limits = limits
        self.executor = BlockingExecutor(label: "strongroom.datastore.\(name)", serial: true)
        self.database = DatabaseBox(connection: connection)
    }

    /// Runs `body` with the open connection on the datastore's serial executor.
    ///
    /// - Throws: ``DatastoreError/Code/closed`` after ``close()``; `body`'s errors; SQLite's mapped by
    ///   `DatastoreError(storage:)`.
    func withConnection<R: Sendable>(
        _ body: @escaping @Sendable (Connection) throws(DatastoreError) -> R
    ) async throws(DatastoreError) -> R {
        let database = database
        return try await executor.run { _ throws(DatastoreError) in
            guard let connection = database.connection else {
                throw DatastoreError(.closed, "the datastore was closed")
            }
            return try body(connection)
        }
    }

    /// Runs `body` with the revision store, reading.
    func read<R: Sendable>(
        _ body: @escaping @Sendable (RevisionStore) throws(DatastoreError) -> R
    ) async throws(DatastoreError) -> R {
        let limits = limits
        return try await withConnection { connection throws(DatastoreError) in
            try connection.readTransaction(mapping: { DatastoreError(storage: $0) }) { () throws(DatastoreError) in
                try body(RevisionStore(connection: connection, limits: limits))
            }
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it
    /// throws, so a failed bulk write leaves nothing behind.
    func write<R: Sendable>(
        _ body: @escaping @Sendable (RevisionStore) throws(DatastoreError) -> R
    ) async throws(DatastoreError) -> R {
        let (limits, notifier) = (limits, notifier)
        return try await withConnection { connection throws(DatastoreError) in
            let store = RevisionStore(connection: connection, limits: limits)
            let result = try connection.transaction(mapping: { DatastoreError(storage: $0) }) {
                () throws(DatastoreError) in try body(store)
            }
            notifier.signal()
            return result
        }
    }

    /// Runs `body` with this datastore's own serial thread as the task's preferred executor (Swift's
    /// `withTaskExecutorPreference`): the datastore's calls in `body` then do their work where `body` already runs,
    /// instead of each handing it to the datastore's thread and waiting for it — two thread wake-ups a call, most of
    /// the cost of a small call such as reading one document by ID. For a loop of many small calls.
    ///
    /// ```swift
    /// let revisions = try await datastore.withExecutorPreference {
    ///     var found: [DocumentRevision] = []
    ///     for id in ids { found.append(try await datastore.document(id: id)) }
    ///     return found
    /// }
    /// ```
    ///
    /// Nothing else changes: every call still runs alone on the datastore's thread, never on the cooperative pool,
    /// with the same transactions and errors. `body`'s own code between the calls runs on that thread too, so other
    /// tasks' calls to this datastore wait while it runs (they go in whenever `body` suspends): keep slow work out
    /// of `body`. Child tasks inherit the preference; code isolated to an actor (the main actor included) runs on
    /// that actor as always, and only the datastore's calls move.
    public func withExecutorPreference<R, E: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(E) -> R
    ) async throws(E) -> R {
        try await withTaskExecutorPreference(executor.taskExecutor, isolation: isolation, operation: body)
    }

    /// The schema version (SQLite's `user_version`).
    public func schemaVersion() async throws(DatastoreError) -> Int {
        try await withConnection { connection throws(DatastoreError) in
            let text = try RevisionStore(connection: connection, limits: .default).sql {
                () throws(SQLiteError) in try connection.scalarText("PRAGMA user_version")
            }
            return Int(text ?? "0") ?? 0
        }
    }

    /// Closes the database. Later calls on this value fail with ``DatastoreError/Code/closed``; other values open
    /// on the same datastore are not affected. Calls already queued finish first.
    public func close() async {
        let database = database
        await executor.run { _ in database.connection = nil }
    }
}

/// The connection, reachable only through ``Datastore/withConnection(_:)``.
///
/// `@unchecked Sendable`: the connection is read and replaced only by jobs of the datastore's serial executor, one
/// at a time.
final class DatabaseBox: @unchecked Sendable {
    var connection: Connection?
    init(connection: Connection) { self.connection = connection }
}
