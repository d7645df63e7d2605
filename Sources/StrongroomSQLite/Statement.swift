// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSQLCipher
package import Foundation

/// A prepared statement: bind, step, read columns. Finalized when released.
///
/// It keeps no reference to its ``Connection``: the connection caches statements, so a reference back would be a
/// cycle that kept both — and the database file, its locks and its WAL — open after the datastore closed. A
/// statement released after its connection still finalizes safely (SQLite closes the connection then).
package final class Statement {
    private let handle: OpaquePointer

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let result = sqlite3_prepare_v2(connection.handle, sql, -1, &handle, nil)
        guard result == SQLITE_OK, let handle else { throw SQLiteError(result, connection.lastMessage) }
        self.handle = handle
    }

    /// The connection's last error message.
    private var lastMessage: String { String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))) }

    deinit { sqlite3_finalize(handle) }

    /// Binds a value to the 1-based parameter `index`.
    package func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let result =
            value.map { sqlite3_bind_text(handle, index, $0, -1, transient) } ?? sqlite3_bind_null(handle, index)
        try check(result)
    }

    /// Binds an integer.
    package func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a floating-point number.
    package func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds bytes.
    package func bind(_ value: Data, at index: Int32) throws(SQLiteError) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let result = value.withUnsafeBytes {
            sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient)
        }
        try check(result)
    }

    /// Binds a boolean as 0 or 1.
    package func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    /// Binds NULL.
    package func bindNull(at index: Int32) throws(SQLiteError) { try check(sqlite3_bind_null(handle, index)) }

    /// Runs a statement that returns no rows (or whose rows are not needed), then resets it for another run.
    package func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    /// Advances to the next row: true when there is one, false when done.
    package func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let result: throw SQLiteError(result, lastMessage)
        }
    }

    /// Clears bindings and rewinds, to run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The text of column `index` (0-based), or nil for NULL.
    package func text(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: text)
    }

    /// Whether column `index` is NULL.
    package func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The integer of column `index`.
    package func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The bytes of column `index`.
    package func data(at index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    private func check(_ result: Int32) throws(SQLiteError) {
        guard result == SQLITE_OK else { throw SQLiteError(result, lastMessage) }
    }
}
