// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLiteKit

/// The record read and insert on the embedded engine, straight through sqlite-nio: the SQL is fixed text with
/// positional parameters, so nothing is serialized per call, and each column is read from the row by name and
/// checked for its storage class instead of passing through SQLKit's `Decoder` (the read runs on every
/// `GET /v1/storage/records/{id}`). The statements and their results are those of the SQL path.
struct SQLiteRecordStatements: PreparedRecordStatements {
    let connection: SQLiteConnection

    static let select = RecordRow.selectStatement { "?\($0)" }
    static let insert = RecordRow.insertStatement { "?\($0)" }

    func row(recordID: String) async throws -> RecordRow? {
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
        let binds: [SQLiteData] = [
            .text(row.recordID), .text(row.writerID), .text(row.userID), .text(row.type), .text(row.plain),
            .text(row.data), row.recordSignature.map(SQLiteData.text) ?? .null, .integer(SQLiteInt64(row.created)),
            .integer(SQLiteInt64(row.lastModified)), .text(row.version), row.fileMeta.map(SQLiteData.text) ?? .null,
            .integer(row.isPending ? 1 : 0),
        ]
        guard let inserted = try await connection.query(Self.insert, binds).first else {
            throw SQLiteRecordError(column: "idx", problem: "the insert returned no row")
        }
        return try inserted.integer("idx")
    }
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
