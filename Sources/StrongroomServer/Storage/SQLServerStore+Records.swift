// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
package import StrongroomWire

/// Records, file records and searches.
extension SQLServerStore {
    // MARK: Records

    package func insertRecord(_ text: StoredRecordText) async throws -> StoredRecordText {
        let row = try recordRow(text)
        var stored = text
        stored.record.index = try await use.query { try await records.insert(row) }
        return stored
    }

    package func record(id: RecordID) async throws -> StoredRecord? {
        try await recordText(id: id).map { text in
            var record = text.record
            record.data = try text.decodedData()
            return record
        }
    }

    package func recordText(id: RecordID) async throws -> StoredRecordText? {
        try await use.query { try await records.row(recordID: id.description) }.map(recordText)
    }

    package func updateRecord(
        id: RecordID,
        expectedVersion: String,
        with update: RecordUpdate
    ) async throws -> VersionedOutcome<StoredRecord> {
        let updated = try await database.raw(
            """
            UPDATE records SET plain = \(bind: encodeStringMap(update.plain)),
            data = \(bind: encodeStringMap(update.data)), rec_sig = \(bind: update.recordSignature),
            version = \(bind: update.newVersion),
            last_modified = \(bind: update.lastModified.microseconds)
            WHERE record_id = \(bind: id.description) AND version = \(bind: expectedVersion) RETURNING *
            """
        ).first()
        if let updated { return .done(try decodeRecord(updated)) }
        return try await record(id: id) == nil ? .notFound : .conflict
    }

    package func commitFile(id: RecordID, lastModified: Timestamp) async throws -> StoredRecord? {
        try await database.raw(
            """
            UPDATE records SET pending = \(bind: false), last_modified = \(bind: lastModified.microseconds)
            WHERE record_id = \(bind: id.description) AND pending = \(bind: true) RETURNING *
            """
        ).first().map { try decodeRecord($0) }
    }

    package func deletePendingFiles(createdBefore time: Timestamp) async throws -> [String] {
        try await database.raw(
            """
            DELETE FROM records WHERE pending = \(bind: true) AND created < \(bind: time.microseconds)
            RETURNING record_id
            """
        ).all().map { try $0.decode(column: "record_id", as: String.self) }
    }

    package func deleteRecord(id: RecordID, expectedVersion: String) async throws -> VersionedOutcome<Void> {
        let deleted = try await database.raw(
            "DELETE FROM records WHERE record_id = \(bind: id.description) AND version = \(bind: expectedVersion) RETURNING record_id"
        ).first()
        if deleted != nil { return .done(()) }
        return try await record(id: id) == nil ? .notFound : .conflict
    }

    package func records(matching query: RecordQuery) async throws -> [StoredRecord] {
        let rows = try await database.raw(Self.sql(matching: query)).all()
        return try rows.map { try decodeRecord($0, includesData: query.includesData) }
    }

    /// The statement of ``records(matching:)``.
    static func sql(matching query: RecordQuery) -> SQLQueryString {
        let columns = query.includesData ? "r.*" : RecordRow.metadataColumns
        // `NOT r.pending`, not `r.pending = ?`: an equality with a bound value lets SQLite walk the
        // `records_pending` index (there for the sweeper) over every record and sort them, for every page
        // (SearchPlanTests).
        var sql: SQLQueryString =
            "SELECT \(unsafeRaw: columns) FROM records r WHERE r.idx > \(bind: query.afterIndex) AND NOT r.pending"
        func list(_ values: [String]) -> [any Encodable & Sendable] { values.map { $0 as any Encodable & Sendable } }
        if !query.writerIDs.isEmpty { sql += " AND r.writer_id IN (\(binds: list(query.writerIDs)))" }
        if !query.userIDs.isEmpty { sql += " AND r.user_id IN (\(binds: list(query.userIDs)))" }
        if !query.recordIDs.isEmpty { sql += " AND r.record_id IN (\(binds: list(query.recordIDs)))" }
        if !query.types.isEmpty { sql += " AND r.type IN (\(binds: list(query.types)))" }
        switch query.scope {
        case .writtenBy(let caller):
            sql += " AND r.writer_id = \(bind: caller)"
        case .readableBy(let caller):
            sql += " AND " + Self.readable(by: caller)
        }
        sql += " ORDER BY r.idx LIMIT \(bind: query.limit)"
        return sql
    }

    /// The condition that the record `r` is readable by `caller`: its writer, its user, or a reader the stored
    /// policy of its type allows. The one place the read rule is written in SQL (v1 search, v2 search, revs_diff).
    static func readable(by caller: String) -> SQLQueryString {
        """
        (r.writer_id = \(bind: caller) OR r.user_id = \(bind: caller) OR EXISTS (SELECT 1 FROM policies p
        WHERE p.user_id = r.user_id AND p.writer_id = r.writer_id AND p.reader_id = \(bind: caller)
        AND p.type = r.type AND p.can_read = \(bind: true)))
        """
    }

    package func records(ids: [RecordID]) async throws -> [StoredRecord] {
        guard !ids.isEmpty else { return [] }
        return try await database.raw(Self.sql(ids: ids)).all().map { try decodeRecord($0) }
    }

    /// The statement of ``records(ids:)``. With `pending = ?` (a bound value) SQLite chose the `records_pending`
    /// index over the primary key and read every record for each call.
    static func sql(ids: [RecordID]) -> SQLQueryString {
        "SELECT * FROM records WHERE record_id IN (\(binds: ids.map { $0.description as any Encodable & Sendable })) AND NOT pending"
    }

    /// A full row, or (`includesData: false`) a metadata-only row from ``RecordRow/metadataColumns``.
    func decodeRecord(_ row: any SQLRow, includesData: Bool = true) throws -> StoredRecord {
        let text = try recordText(try recordRow(row, includesData: includesData))
        var record = text.record
        if includesData {
            record.data = try text.decodedData()
        } else {
            record.dataSize = Int(clamping: try row.decode(column: "data_size", as: Int64.self))
        }
        return record
    }
}
