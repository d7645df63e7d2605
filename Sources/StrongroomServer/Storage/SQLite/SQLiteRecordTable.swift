// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import SQLiteKit

/// The `records` table on the embedded engine: the record read and insert, and the parts of the engine that exist
/// for them — the in-place reader, the group commit and the log's checkpointer.
///
/// The read (every `GET /v1/storage/records/{id}`) runs in place on read-only connections of its own
/// (``SQLiteRecordReader``), and through sqlite-nio on the serving connection only when those cannot take it now.
/// Inserts go straight through sqlite-nio: the SQL is fixed text with positional parameters, so nothing is
/// serialized per call, and columns are read by name and checked for their storage class instead of passing through
/// SQLKit's `Decoder`; inserts that arrive while one runs are written together (``GroupInsert``), and the
/// checkpointer (``WALCheckpointer``) holds them in that queue while it restarts the log. Every statement and codec
/// comes from ``RecordColumn``.
final class SQLiteRecordTable: RecordStatements {
    /// The serving connection, which every write goes through.
    let connection: SQLiteConnection
    /// Its turns (``ConnectionGate``).
    let gate: ConnectionGate
    /// The in-place reads.
    let reader: SQLiteRecordReader
    /// Where inserts queue for the connection.
    let group: GroupInsert
    /// Moves the log into the database file from a connection of its own.
    let checkpointer: WALCheckpointer

    static let select = RecordRow.selectStatement { "?\($0)" }
    private static let singleInsert = RecordRow.insertStatement { "?\($0)" }

    /// The table over the serving `connection` of the database at `path`, checkpointing through `checkpoints`.
    /// Every statement on `connection` takes its turn at `gate` (a transaction holds it throughout).
    init(
        path: String,
        connection: SQLiteConnection,
        checkpoints: SQLiteConnection,
        gate: ConnectionGate,
        logger: Logger
    ) {
        self.connection = connection
        self.gate = gate
        self.reader = SQLiteRecordReader(path: path, logger: logger)
        let group = GroupInsert(
            writer: GroupInsert.Writer(
                insertOne: { row in try await gate.run { try await Self.insert([row], on: connection)[0] } },
                insertMany: { rows in try await gate.run { try await Self.insert(rows, on: connection) } }
            )
        )
        self.group = group
        self.checkpointer = WALCheckpointer(connection: checkpoints, inserts: group, logger: logger)
    }

    func row(recordID: String) async throws -> RecordRow? {
        if case .read(let row) = try reader.row(recordID: recordID) { return row }
        let connection = connection
        let found = try await gate.run { try await connection.query(Self.select, [.text(recordID)]).first }
        guard let row = found else { return nil }
        return try RecordRow { column in try row.column(column.name).recordValue(column) }
    }

    func insert(_ row: RecordRow) async throws -> Int64 {
        try await group.insert(row)
    }

    /// Closes the reader's and the checkpointer's connections (the serving one is the database's to close).
    func close() async throws {
        reader.close()
        try await checkpointer.connection.close()
    }

    /// One `INSERT` of all of `rows` (one transaction); answers their indexes in the order of `rows`.
    static func insert(_ rows: [RecordRow], on connection: SQLiteConnection) async throws -> [Int64] {
        var binds: [SQLiteData] = []
        binds.reserveCapacity(rows.count * RecordColumn.inserted.count)
        for row in rows {
            for column in RecordColumn.inserted { binds.append(SQLiteData(row[column])) }
        }
        let statement = rows.count == 1 ? singleInsert : RecordRow.insertStatement(rows: rows.count) { "?\($0)" }
        var indexes: [String: Int64] = [:]
        for inserted in try await connection.query(statement, binds) {
            guard case .text(let recordID) = inserted.column(RecordColumn.recordID.name),
                case .integer(let index) = inserted.column(RecordColumn.index.name)
            else { throw RecordTableError(column: "idx", problem: "the insert returned a malformed row") }
            indexes[recordID] = Int64(index)
        }
        return try rows.map { row in
            // RETURNING's order is SQLite's to choose: match each row by its ID.
            guard let index = indexes[row.recordID] else {
                throw RecordTableError(column: "idx", problem: "the insert returned no row for \(row.recordID)")
            }
            return index
        }
    }
}

extension SQLiteData {
    /// A record column's value as sqlite-nio binds it (SQLite keeps booleans as integers).
    fileprivate init(_ value: RecordValue) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .integer(SQLiteInt64(number))
        case .text(let text): self = .text(text)
        case .boolean(let flag): self = .integer(flag ? 1 : 0)
        }
    }
}

extension Optional where Wrapped == SQLiteData {
    /// The value sqlite-nio read for `column`, for ``RecordRow/init(reading:)`` to check (a column missing from
    /// the row, or a storage class the schema never puts there, is refused).
    fileprivate func recordValue(_ column: RecordColumn) throws -> RecordValue {
        switch self {
        case .null: return .null
        case .integer(let number): return .sqliteInteger(Int64(number), for: column)
        case .text(let text): return .text(text)
        case .float, .blob, .none:
            throw RecordTableError.unexpectedValue(in: column)
        }
    }
}

extension RecordValue {
    /// An integer SQLite read for `column`: SQLite keeps booleans as 0 and 1, so a boolean column's integer is a
    /// boolean (the embedded engine's codecs, sqlite-nio's and the in-place reader's, both read through here).
    static func sqliteInteger(_ number: Int64, for column: RecordColumn) -> RecordValue {
        column.kind == .boolean ? .boolean(number != 0) : .integer(number)
    }
}
