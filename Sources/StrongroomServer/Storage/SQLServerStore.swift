// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import SQLKit

/// Everything the server keeps, over one SQLite or PostgreSQL database: the server's store, written once in SQL
/// (SQLKit) for both engines, with the `records` table's read and insert in the engine's own `RecordStatements`.
/// Each method is one statement, or a statement whose outcome is decided atomically by the database (`RETURNING`,
/// `ON CONFLICT`).
///
/// Get one from a ``ServerDatabase``; its operations are the server's own.
public struct SQLServerStore: ServerStore {
    /// The SQL dialects whose schema differs.
    package enum Engine: Sendable {
        case sqlite
        case postgres
    }

    package let database: any SQLDatabase
    /// Which engine `database` runs on.
    package let engine: Engine
    /// Statements and sessions running through this store (the pool use `GET /metrics` reports).
    package let use: DatabaseUse
    /// The engine's `records` table: the record read and insert.
    let records: any RecordStatements

    /// Wraps a database connection or pool whose engine reads and inserts records through `records`; a single
    /// connection shared by every request comes with the `gate` that gives it in turns.
    init(database: any SQLDatabase, engine: Engine, records: any RecordStatements, gate: ConnectionGate?) {
        let use = DatabaseUse()
        self.database = MeteredDatabase(base: database, use: use, gate: gate)
        self.engine = engine
        self.use = use
        self.records = records
    }

    /// Wraps a connection pool (each session its own connection) whose engine reads and inserts records through
    /// `records`.
    package init(database: any SQLDatabase, engine: Engine, records: any RecordStatements) {
        self.init(database: database, engine: engine, records: records, gate: nil)
    }

    // MARK: JSON columns

    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}
