// Strongroom — SPDX-License-Identifier: Apache-2.0

/// An engine's `records` table: the two statements every record read and write runs, written for the engine's own
/// driver instead of going through SQLKit. PostgreSQL prepares them once per connection (SQLKit sends each query as
/// an unnamed statement, parsed and planned every time); SQLite runs them as fixed text through sqlite-nio, in place
/// for reads, and groups concurrent inserts into one commit. Both render their SQL and their row codec from
/// ``RecordColumn``. Each call is one statement; ``SQLServerStore`` counts it as one.
package protocol RecordStatements: Sendable {
    /// `SELECT` of every column of the record `recordID`, or nil when there is none.
    func row(recordID: String) async throws -> RecordRow?
    /// `INSERT` of `row` (its `index` ignored), returning the index the database gave it.
    func insert(_ row: RecordRow) async throws -> Int64
}
