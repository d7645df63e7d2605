// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSQLCipher
package import StrongroomCore

/// One SQLCipher connection. Not `Sendable`: it is owned by one serial ``StrongroomCore/BlockingExecutor`` (the
/// datastore's), which runs every call on one thread at a time, never on the cooperative pool.
///
/// An encrypted connection is keyed with a raw 256-bit key (no KDF runs per open) and every cipher parameter is
/// set explicitly — SQLCipher 4's values, written down in the datastore's file-format article — so a change of
/// SQLCipher's defaults can never change the format silently:
///
/// | Setting | Value |
/// |---|---|
/// | key | raw, `x'<64 hex digits>'` |
/// | `cipher_page_size` | 4096 |
/// | `kdf_iter` | 256000 (unused with a raw key; set so the settings are complete) |
/// | `cipher_hmac_algorithm` | `HMAC_SHA512` |
/// | `cipher_kdf_algorithm` | `PBKDF2_HMAC_SHA512` |
/// | `cipher_plaintext_header_size` | 0 (the whole file, header included, is ciphertext) |
/// | `temp_store` | `MEMORY` (Debian's build would otherwise write temp tables to unencrypted files) |
package final class Connection {
    /// The cipher settings every encrypted connection applies, in order, right after the key.
    package static let cipherSettings = [
        "PRAGMA cipher_page_size = 4096",
        "PRAGMA kdf_iter = 256000",
        "PRAGMA cipher_hmac_algorithm = HMAC_SHA512",
        "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA512",
        "PRAGMA cipher_plaintext_header_size = 0",
    ]

    let handle: OpaquePointer
    /// Prepared statements by SQL text, reused by ``cached(_:)``.
    private var statements: [String: Statement] = [:]
    /// Counts virtual-machine instructions while ``startCountingSteps()`` is in effect.
    private var stepCounter: StepCounter?

    /// Opens (creating if needed) the database at `path`, encrypted with `key` (32 bytes) or unencrypted when
    /// `key` is nil, and proves the key by reading the schema.
    ///
    /// - Throws: ``SQLiteError/Code/notADatabase`` for a wrong key, an encrypted file opened without a key, or a
    ///   plaintext file opened with one; other codes for file-system failures. Nothing is read or written then.
    package init(path: String, key: SecureBytes?) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw SQLiteError(opened, "the database file cannot be opened")
        }
        do throws(SQLiteError) {
            // SQLCipher logs a wrong key to stderr; the typed error says it instead. Set again after keying: the
            // first key of a process initialises SQLCipher, which resets the level.
            try Self.execute("PRAGMA cipher_log_level = NONE", on: handle)
            if let key {
                try Self.apply(key: key, to: handle)
                try Self.execute("PRAGMA cipher_log_level = NONE", on: handle)
                for setting in Self.cipherSettings { try Self.execute(setting, on: handle) }
            }
            try Self.execute("PRAGMA temp_store = MEMORY", on: handle)
            try Self.execute("SELECT count(*) FROM sqlite_master", on: handle)
            // On a plain SQLite build PRAGMA key is ignored silently: prove SQLCipher is there.
            if key != nil, try Self.execute("PRAGMA cipher_version", on: handle) == 0 {
                throw SQLiteError(SQLITE_MISUSE, "SQLCipher is not linked: refusing to open unencrypted")
            }
        } catch {
            // `self` is not initialized yet, so `deinit` will not run: close here, once.
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Keys the connection with `x'<hex>'` built in a buffer that is wiped afterwards.
    private static func apply(key: SecureBytes, to handle: OpaquePointer) throws(SQLiteError) {
        try withKeyText(key) { text throws(SQLiteError) in
            let result = text.withUnsafeBytes { sqlite3_key(handle, $0.baseAddress, Int32($0.count)) }
            guard result == SQLITE_OK else { throw SQLiteError(result, "the key could not be applied") }
        }
    }

    /// Calls `body` with SQLCipher's raw-key text `x'<64 hex digits>'` for `key`, in a buffer wiped afterwards.
    private static func withKeyText(
        _ key: SecureBytes,
        _ body: ([UInt8]) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        guard key.count == 32 else { throw SQLiteError(SQLITE_MISUSE, "a database key is 32 bytes") }
        var text = [UInt8](repeating: 0, count: 3 + 64)
        defer { Wipe.bytes(&text) }
        text[0] = UInt8(ascii: "x")
        text[1] = UInt8(ascii: "'")
        key.withUnsafeBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                text[2 + 2 * index] = lowercaseHexDigit(byte >> 4)
                text[3 + 2 * index] = lowercaseHexDigit(byte & 0x0F)
            }
        }
        text[66] = UInt8(ascii: "'")
        try body(text)
    }

    /// Runs SQL whose rows, if any, are ignored (one or more statements).
    package func execute(_ sql: String) throws(SQLiteError) {
        _ = try Self.execute(sql, on: handle)
    }

    /// Runs SQL on `handle`; returns how many rows it produced.
    @discardableResult
    private static func execute(_ sql: String, on handle: OpaquePointer) throws(SQLiteError) -> Int {
        var rows = 0
        var error: UnsafeMutablePointer<CChar>?
        let result = withUnsafeMutablePointer(to: &rows) { counter in
            sqlite3_exec(
                handle,
                sql,
                { context, _, _, _ in
                    context?.assumingMemoryBound(to: Int.self).pointee += 1
                    return 0
                },
                counter,
                &error
            )
        }
        sqlite3_free(error)
        guard result == SQLITE_OK else { throw SQLiteError(result, String(cString: sqlite3_errmsg(handle))) }
        return rows
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last statement changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// How long a statement waits for another connection's lock before failing with ``SQLiteError/Code/busy``.
    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Re-encrypts every page under `key` (32 bytes) in one transaction (SQLCipher's `sqlite3_rekey`): a crash
    /// leaves the database under the old key or the new one. The connection stays open under the new key.
    package func rekey(to key: SecureBytes) throws(SQLiteError) {
        try Self.withKeyText(key) { text throws(SQLiteError) in
            let result = text.withUnsafeBytes { sqlite3_rekey(handle, $0.baseAddress, Int32($0.count)) }
            guard result == SQLITE_OK else { throw SQLiteError(result, "the database could not be re-keyed") }
        }
    }

    /// Runs `body` with a statement prepared once per connection (for SQL that runs often), reset afterwards so it
    /// never holds a read transaction open. `body` must not use the same SQL again.
    package func withStatement<R>(
        _ sql: String,
        _ body: (Statement) throws(SQLiteError) -> R
    ) throws(SQLiteError) -> R {
        let statement: Statement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try prepare(sql)
            statements[sql] = statement
        }
        defer { statement.reset() }
        return try body(statement)
    }

    /// Prepares one statement.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// The first column of the first row of `sql` as text, or nil when there is no row.
    package func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// Runs a statement that returns no rows, prepared once per connection (`sqlite3_exec` would parse the text on
    /// every call: transactions begin and end through this).
    private func runCached(_ sql: String) throws(SQLiteError) {
        try withStatement(sql) { statement throws(SQLiteError) in try statement.run() }
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it throws.
    /// SQLite's own failures (begin, commit) are turned into the caller's error type by `mapping`.
    package func transaction<R, E: Error>(
        mapping: (SQLiteError) -> E,
        _ body: () throws(E) -> R
    ) throws(E) -> R {
        do throws(SQLiteError) { try runCached("BEGIN IMMEDIATE") } catch { throw mapping(error) }
        do throws(E) {
            let result = try body()
            do throws(SQLiteError) { try runCached("COMMIT") } catch { throw mapping(error) }
            return result
        } catch {
            try? execute("ROLLBACK")  // the original error is the one to report
            throw error
        }
    }

    /// Runs `body`'s reads in one read transaction (`BEGIN`, deferred): one snapshot for all of them, and the
    /// file's shared lock taken and released once rather than around every statement (two `fcntl` calls each).
    package func readTransaction<R, E: Error>(
        mapping: (SQLiteError) -> E,
        _ body: () throws(E) -> R
    ) throws(E) -> R {
        do throws(SQLiteError) { try runCached("BEGIN") } catch { throw mapping(error) }
        // Nothing was written: ending the transaction only releases the snapshot, whatever `body` did. Should COMMIT
        // fail, ROLLBACK ends it all the same, so the next call never finds a transaction still open.
        defer {
            do {
                try runCached("COMMIT")
            } catch {
                try? execute("ROLLBACK")
            }
        }
        return try body()
    }

    /// SQLite's message for the last failure, without SQL text or values.
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

// MARK: - Work counting

/// The instructions counted so far; the progress handler's context (unretained: the connection keeps it alive until
/// the handler is removed).
private final class StepCounter {
    var steps = 0
}

extension Connection {
    /// Starts counting the virtual-machine instructions SQLite runs on this connection, over every statement: the
    /// work a query does, independent of the machine's speed. Complexity tests sum it over an operation at two sizes
    /// and check it grows linearly (a plan that walks a whole table per page shows as quadratic growth).
    package func startCountingSteps() {
        let counter = StepCounter()
        stepCounter = counter
        sqlite3_progress_handler(
            handle,
            1,
            { context in
                guard let context else { return 0 }
                Unmanaged<StepCounter>.fromOpaque(context).takeUnretainedValue().steps += 1
                return 0
            },
            Unmanaged.passUnretained(counter).toOpaque()
        )
    }

    /// Stops counting and returns the instructions counted since ``startCountingSteps()`` (0 if it was not called).
    package func stopCountingSteps() -> Int {
        sqlite3_progress_handler(handle, 0, nil, nil)
        defer { stepCounter = nil }
        return stepCounter?.steps ?? 0
    }
}
