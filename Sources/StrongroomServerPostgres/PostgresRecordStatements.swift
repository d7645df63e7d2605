// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import PostgresKit
import StrongroomServer

/// The record read and insert as named prepared statements: each pooled connection parses and plans them once (on
/// first use) and then only binds and executes them, and rows are decoded by position instead of by column name.
// @unchecked: as PostgresServerDatabase — immutable, and the pool synchronises itself.
final class PostgresRecordStatements: PreparedRecordStatements, @unchecked Sendable {
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
            guard let index else { throw PostgresStatementError.noRowReturned(InsertRecord.name) }
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

/// A statement that must return a row did not.
enum PostgresStatementError: Error, CustomStringConvertible {
    case noRowReturned(String)

    var description: String {
        switch self {
        case .noRowReturned(let name): "\(name) returned no row"
        }
    }
}

/// Every column of one record, in ``RecordRow``'s order.
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
        let (
            index, recordID, writerID, userID, type, plain, data, signature, created, modified, version, file, pending
        ) =
            try row.decode(
                (
                    Int64, String, String, String, String, String, String, String?, Int64, Int64, String, String?,
                    Bool
                ).self
            )
        return RecordRow(
            index: index,
            recordID: recordID,
            writerID: writerID,
            userID: userID,
            type: type,
            plain: plain,
            data: data,
            recordSignature: signature,
            created: created,
            lastModified: modified,
            version: version,
            fileMeta: file,
            isPending: pending
        )
    }
}

/// A new record; returns its index (the statement answers its ID and index).
private struct InsertRecord: PostgresPreparedStatement {
    static let name = "strongroom_insert_record"
    static let sql = RecordRow.insertStatement { "$\($0)" }
    typealias Row = Int64

    var row: RecordRow

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(row.recordID)
        bindings.append(row.writerID)
        bindings.append(row.userID)
        bindings.append(row.type)
        bindings.append(row.plain)
        bindings.append(row.data)
        bindings.append(row.recordSignature)
        bindings.append(row.created)
        bindings.append(row.lastModified)
        bindings.append(row.version)
        bindings.append(row.fileMeta)
        bindings.append(row.isPending)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode((String, Int64).self).1 }
}
