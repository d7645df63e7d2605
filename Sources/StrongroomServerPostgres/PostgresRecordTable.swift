// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import PostgresKit
import StrongroomServer

/// The `records` table on PostgreSQL: the record read and insert as named prepared statements. Each pooled
/// connection parses and plans them once (on first use) and then only binds and executes them, and rows are decoded
/// by position instead of by column name. Statements and codec come from ``RecordColumn``.
// @unchecked: as PostgresServerDatabase — immutable, and the pool synchronises itself.
final class PostgresRecordTable: RecordStatements, @unchecked Sendable {
    private let pool: EventLoopGroupConnectionPool<PostgresConnectionSource>
    private let logger: Logger

    init(pool: EventLoopGroupConnectionPool<PostgresConnectionSource>, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    func row(recordID: String) async throws -> RecordRow? {
        try await withConnection { connection in
            var found: RecordRow?
            for try await row in try await connection.execute(SelectRecord(recordID: recordID), logger: logger) {
                found = row
            }
            return found
        }
    }

    func insert(_ row: RecordRow) async throws -> Int64 {
        try await withConnection { connection in
            var index: Int64?
            for try await inserted in try await connection.execute(InsertRecord(row: row), logger: logger) {
                index = inserted
            }
            guard let index else {
                throw RecordTableError(column: "idx", problem: "\(InsertRecord.name) returned no row")
            }
            return index
        }
    }

    /// Runs `body` on a pooled connection, giving it back afterwards whatever happened.
    private func withConnection<R: Sendable>(_ body: (PostgresConnection) async throws -> R) async throws -> R {
        let connection = try await pool.requestConnection(logger: logger).get()
        defer { pool.releaseConnection(connection, logger: logger) }
        return try await body(connection)
    }
}

/// Every column of one record, in ``RecordColumn`` order.
private struct SelectRecord: PostgresPreparedStatement {
    static let name = "strongroom_select_record"
    static let sql = RecordRow.selectStatement { "$\($0)" }
    typealias Row = RecordRow

    var recordID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(recordID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> RecordRow {
        let cells = row.makeRandomAccess()
        guard cells.count == RecordColumn.allCases.count else {
            throw RecordTableError(column: "*", problem: "\(Self.name) answered \(cells.count) columns")
        }
        return try RecordRow { column in
            let cell = cells[column.rawValue]
            switch column.kind {
            case .integer: return .integer(try cell.decode(Int64.self))
            case .text: return .text(try cell.decode(String.self))
            case .optionalText: return try cell.decode(String?.self).map(RecordValue.text) ?? .null
            case .boolean: return .boolean(try cell.decode(Bool.self))
            }
        }
    }
}

/// A new record, its ``RecordColumn/inserted`` columns in order; returns its index (the statement answers its ID
/// and index).
private struct InsertRecord: PostgresPreparedStatement {
    typealias Row = Int64
    static let name = "strongroom_insert_record"
    static let sql = RecordRow.insertStatement { "$\($0)" }

    var row: RecordRow

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: RecordColumn.inserted.count)
        for column in RecordColumn.inserted {
            switch row[column] {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .boolean(let flag): bindings.append(flag)
            }
        }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode((String, Int64).self).1 }
}
