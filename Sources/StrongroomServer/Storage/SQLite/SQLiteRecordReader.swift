// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import Synchronization
// sqlite-nio's vendored SQLite, the very library copy its connections use (the module behind SQLiteNIO, which
// Package.swift pins to a minor version because of this import; this is the one file that reaches it): one copy per
// process keeps SQLite's POSIX locks on the file consistent; a second SQLite library on the same file would not
// (SQLite's "How To Corrupt", 2.2.1).
import VaporCSQLite

/// The record read on the embedded engine, run on the caller's thread over read-only connections of its own.
///
/// Every `GET /v1/storage/records/{id}` reads one row by its primary key. Through sqlite-nio that read hops from the
/// request's task to sqlite-nio's thread pool and back (two thread wake-ups, which on a small virtual machine cost
/// more than the read). Here it runs in place: a B-tree lookup by key over pages the OS caches, with a statement
/// prepared once per connection. In WAL mode a reader never waits for the writer or a checkpoint, and sees every
/// commit made before it started — so every acknowledged write. When SQLite still answers "busy" (a reader racing
/// the log's recovery), or every connection is in use, the caller gets ``Outcome/unavailable`` and reads through
/// sqlite-nio instead, so nothing here waits on a lock for more than ``ReaderConnection/busyMilliseconds``.
///
/// Connections open as they are first needed, up to ``maximumConnections``; an idle one holds no read transaction,
/// so it never delays a checkpoint. A connection that cannot be opened (out of file descriptors, say) is logged and
/// not tried again for ``retryDelay``: reads go through the serving connection meanwhile.
final class SQLiteRecordReader: Sendable {
    /// What a read found, when it could run here.
    enum Outcome {
        /// The row, or nil when no record has that ID.
        case read(RecordRow?)
        /// The read could not run here now (every connection in use or none could be opened, or SQLite busy); use
        /// the serving connection.
        case unavailable
    }

    /// The version of the SQLite library this file calls (`sqlite3_libversion`): the same as the serving
    /// connection's `sqlite_version()` as long as both are sqlite-nio's one copy (SQLiteRecordReaderTests checks).
    static var libraryVersion: String { String(cString: sqlite_nio_sqlite3_libversion()) }

    let path: String
    /// Connections open at most: one per thread that may read at the same time, with room to spare.
    let maximumConnections: Int
    /// How long after a connection failed to open the reader tries again.
    let retryDelay: Duration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var idle: [ReaderConnection] = []
        var open = 0
        var isClosed = false
        /// No connection is opened before this, after one failed to open.
        var retryAt: ContinuousClock.Instant?
    }

    init(path: String, logger: Logger, maximumConnections: Int = 8, retryDelay: Duration = .seconds(10)) {
        self.path = path
        self.logger = logger
        self.maximumConnections = maximumConnections
        self.retryDelay = retryDelay
        self.state = Mutex(State())
    }

    /// Reads the row of `recordID` on this thread, or says it cannot now.
    ///
    /// - Throws: ``RecordTableError`` when a read fails other than with "busy" (the connection is closed, not
    ///   kept), or a column does not hold what the schema puts there.
    func row(recordID: String) throws -> Outcome {
        guard let connection = take() else { return .unavailable }
        var keep = true
        defer { give(back: connection, keep: keep) }
        do {
            return try connection.row(recordID: recordID)
        } catch {
            keep = false
            throw error
        }
    }

    /// Connections open now, idle or in use.
    var openConnections: Int { state.withLock { $0.open } }

    /// Closes every idle connection now and each connection in use as it comes back; later reads are unavailable.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            state.open -= state.idle.count
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    /// An idle connection, a new one when none is idle and fewer than the maximum are open, or nil (also when a new
    /// one could not be opened, or SQLite was busy while it read the schema). Give it back with
    /// ``give(back:keep:)``.
    func take() -> ReaderConnection? {
        enum Next { case use(ReaderConnection), open, none }
        let next: Next = state.withLock { state in
            if state.isClosed { return .none }
            if let connection = state.idle.popLast() { return .use(connection) }
            guard state.open < maximumConnections else { return .none }
            if let retryAt = state.retryAt, ContinuousClock.now < retryAt { return .none }
            state.open += 1
            return .open
        }
        switch next {
        case .use(let connection): return connection
        case .none: return nil
        case .open:
            do {
                return try ReaderConnection(path: path)
            } catch is ReaderConnection.Busy {
                state.withLock { $0.open -= 1 }
                return nil
            } catch {
                let retryAt = ContinuousClock.now + retryDelay
                state.withLock { state in
                    state.open -= 1
                    state.retryAt = retryAt
                }
                logger.warning(
                    "record reads go through the serving connection: a reader connection did not open",
                    metadata: ["error": "\(error)", "retry_in": "\(retryDelay)"]
                )
                return nil
            }
        }
    }

    /// Returns a connection from ``take()``: to the idle ones, or closed when `keep` is false or the reader is.
    func give(back connection: ReaderConnection, keep: Bool) {
        let kept = state.withLock { state in
            guard keep, !state.isClosed else {
                state.open -= 1
                return false
            }
            state.idle.append(connection)
            return true
        }
        if !kept { connection.close() }
    }
}

/// One read-only SQLite connection with the record `SELECT` prepared on it.
///
/// `@unchecked Sendable`: used by one thread at a time — the reader hands it out under its lock and takes it back
/// before anyone else gets it.
final class ReaderConnection: @unchecked Sendable {
    private var database: OpaquePointer?
    private var select: OpaquePointer?

    /// How long a read waits for SQLite's locks before giving up and reading through the serving connection.
    static let busyMilliseconds: Int32 = 10

    init(path: String) throws {
        var handle: OpaquePointer?
        let opened = sqlite_nio_sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        database = handle
        guard opened == SQLITE_OK else {
            defer { close() }
            throw failure("open")
        }
        sqlite_nio_sqlite3_busy_timeout(handle, Self.busyMilliseconds)
        var statement: OpaquePointer?
        let prepared = sqlite_nio_sqlite3_prepare_v3(
            handle,
            SQLiteRecordTable.select,
            -1,
            UInt32(SQLITE_PREPARE_PERSISTENT),
            &statement,
            nil
        )
        select = statement
        guard prepared == SQLITE_OK else {
            defer { close() }
            // Preparing reads the schema, which a writer's lock on a database in rollback mode can hold up.
            if Self.isBusy(prepared) { throw Busy() }
            throw failure("prepare")
        }
    }

    /// SQLite was busy while the connection read the schema: try again later.
    struct Busy: Error {}

    private static func isBusy(_ code: Int32) -> Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }

    deinit { close() }

    /// Finalizes the statement and closes the connection (again: nothing).
    func close() {
        sqlite_nio_sqlite3_finalize(select)
        select = nil
        sqlite_nio_sqlite3_close_v2(database)
        database = nil
    }

    /// The row of `recordID` (nil when there is none), or unavailable when SQLite was busy.
    func row(recordID: String) throws -> SQLiteRecordReader.Outcome {
        guard let select else { throw RecordTableError(column: "*", problem: "the reader connection is closed") }
        defer {
            sqlite_nio_sqlite3_reset(select)
            sqlite_nio_sqlite3_clear_bindings(select)
        }
        return try recordID.withCString { id -> SQLiteRecordReader.Outcome in
            // SQLITE_STATIC (no destructor): the text outlives the statement's use of it, reset in the defer above.
            guard sqlite_nio_sqlite3_bind_text(select, 1, id, -1, nil) == SQLITE_OK else { throw failure("bind") }
            switch sqlite_nio_sqlite3_step(select) {
            case SQLITE_DONE: return .read(nil)
            case SQLITE_ROW: return .read(try Self.record(select))
            case let code where Self.isBusy(code): return .unavailable
            default: throw failure("step")
            }
        }
    }

    /// The current row of `select` (its columns in ``RecordColumn`` order, as ``RecordRow/selectStatement(placeholder:)``
    /// lists them).
    private static func record(_ select: OpaquePointer) throws -> RecordRow {
        try RecordRow { column in
            let position = Int32(column.rawValue)
            switch sqlite_nio_sqlite3_column_type(select, position) {
            case SQLITE_NULL:
                return .null
            case SQLITE_INTEGER:
                return .sqliteInteger(sqlite_nio_sqlite3_column_int64(select, position), for: column)
            case SQLITE_TEXT:
                guard let bytes = sqlite_nio_sqlite3_column_text(select, position) else {
                    throw RecordTableError(column: column.name, problem: "out of memory reading text")
                }
                // column_bytes after column_text: the length of the UTF-8 text just produced.
                let count = Int(sqlite_nio_sqlite3_column_bytes(select, position))
                return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
            default:
                throw RecordTableError.unexpectedValue(in: column)
            }
        }
    }

    private func failure(_ operation: String) -> RecordTableError {
        let message = database.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "out of memory"
        return RecordTableError(column: "*", problem: "\(operation) failed: \(message)")
    }
}
