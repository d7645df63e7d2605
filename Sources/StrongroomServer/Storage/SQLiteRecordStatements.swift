// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLiteKit

/// The record read and insert on the embedded engine. The read (every `GET /v1/storage/records/{id}`) runs in place
/// on read-only connections of its own (``SQLiteRecordReader``), and through sqlite-nio only when those cannot take
/// it now. Inserts go straight through sqlite-nio: the SQL is fixed text with positional parameters, so nothing is
/// serialized per call, and columns are read by name and checked for their storage class instead of passing through
/// SQLKit's `Decoder`; inserts that arrive while one runs are written together (``GroupInsert``). The statements and
/// their results are those of the SQL path.
struct SQLiteRecordStatements: PreparedRecordStatements {
    let connection: SQLiteConnection
    /// The in-place reads, or nil to read through `connection` only.
    let reader: SQLiteRecordReader?
    /// Where inserts queue for the connection.
    let group: GroupInsert

    static let select = RecordRow.selectStatement { "?\($0)" }

    init(connection: SQLiteConnection, reader: SQLiteRecordReader?) {
        self.connection = connection
        self.reader = reader
        self.group = GroupInsert(
            writer: GroupInsert.Writer(
                insertOne: { try await Self.insert([$0], on: connection)[0] },
                insertMany: { try await Self.insert($0, on: connection) }
            )
        )
    }

    func row(recordID: String) async throws -> RecordRow? {
        if let reader, case .read(let row) = try reader.row(recordID: recordID) { return row }
        guard let row = try await connection.query(Self.select, [.text(recordID)]).first else { return nil }
        return RecordRow(
            index: try row.integer("idx"),
            recordID: try row.text("record_id"),
            writerID: try row.text("writer_id"),
            userID: try row.text("user_id"),
            type: try row.text("type"),
            plain: try row.text("plain"),
            data: try row.text("data"),
            recordSignature: try row.optionalText("rec_sig"),
            created: try row.integer("created"),
            lastModified: try row.integer("last_modified"),
            version: try row.text("version"),
            fileMeta: try row.optionalText("file_meta"),
            isPending: try row.integer("pending") != 0
        )
    }

    func insert(_ row: RecordRow) async throws -> Int64 {
        try await group.insert(row)
    }

    /// One `INSERT` of all of `rows` (one transaction); answers their indexes in the order of `rows`.
    static func insert(_ rows: [RecordRow], on connection: SQLiteConnection) async throws -> [Int64] {
        var binds: [SQLiteData] = []
        binds.reserveCapacity(rows.count * RecordRow.insertedColumns)
        for row in rows {
            binds += [
                .text(row.recordID), .text(row.writerID), .text(row.userID), .text(row.type), .text(row.plain),
                .text(row.data), row.recordSignature.map(SQLiteData.text) ?? .null,
                .integer(SQLiteInt64(row.created)), .integer(SQLiteInt64(row.lastModified)), .text(row.version),
                row.fileMeta.map(SQLiteData.text) ?? .null, .integer(row.isPending ? 1 : 0),
            ]
        }
        let statement = rows.count == 1 ? singleInsert : RecordRow.insertStatement(rows: rows.count) { "?\($0)" }
        var indexes: [String: Int64] = [:]
        for inserted in try await connection.query(statement, binds) {
            indexes[try inserted.text("record_id")] = try inserted.integer("idx")
        }
        return try rows.map { row in
            // RETURNING's order is SQLite's to choose: match each row by its ID.
            guard let index = indexes[row.recordID] else {
                throw SQLiteRecordError(column: "idx", problem: "the insert returned no row for \(row.recordID)")
            }
            return index
        }
    }

    private static let singleInsert = RecordRow.insertStatement { "?\($0)" }
}

/// A `records` column that did not hold what the schema puts there.
struct SQLiteRecordError: Error, CustomStringConvertible {
    let column: String
    let problem: String

    var description: String { "records.\(column): \(problem)" }
}

extension SQLiteRow {
    fileprivate func integer(_ name: String) throws -> Int64 {
        guard case .integer(let value) = column(name) else {
            throw SQLiteRecordError(column: name, problem: "expected an integer")
        }
        return Int64(value)
    }

    fileprivate func text(_ name: String) throws -> String {
        guard case .text(let value) = column(name) else {
            throw SQLiteRecordError(column: name, problem: "expected text")
        }
        return value
    }

    fileprivate func optionalText(_ name: String) throws -> String? {
        switch column(name) {
        case .null: return nil
        case .text(let value): return value
        default: throw SQLiteRecordError(column: name, problem: "expected text or NULL")
        }
    }
}
