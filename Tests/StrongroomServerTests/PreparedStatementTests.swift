// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import SQLKit
import StrongroomServerPostgres
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The record read and insert (prepared statements on PostgreSQL, fixed statements straight through sqlite-nio on
/// SQLite) store and give back every column as the SQL path writes and reads it: the same rows through
/// `records(ids:)`, in both directions.
@Suite struct PreparedStatementTests {
    static let records: [StoredRecord] = [
        record(id: "00000000-0000-4000-8000-000000000001", signature: nil, file: nil, pending: false),
        record(
            id: "00000000-0000-4000-8000-000000000002",
            signature: "sig/\"q\"\\é",
            file: FileMeta(checksum: "c29tZQ==", compression: "raw", size: 1 << 40, fileName: "ä \"b\".bin"),
            pending: false
        ),
        record(id: "00000000-0000-4000-8000-000000000003", signature: nil, file: nil, pending: true),
    ]

    static func id(_ text: String) throws -> RecordID { try #require(RecordID(text)) }

    static func record(id: String, signature: String?, file: FileMeta?, pending: Bool) -> StoredRecord {
        StoredRecord(
            index: 0,
            recordID: id,
            writerID: "11111111-1111-4111-8111-111111111111",
            userID: "22222222-2222-4222-8222-222222222222",
            type: "type \u{1}é",
            plain: ["k": "v\n\"\\", "ü": "\u{2028}"],
            data: ["f": "a.b.c.d", "g\"": String(repeating: "x", count: 5000)],
            recordSignature: signature,
            created: Timestamp(microseconds: 1_700_000_000_123_456),
            lastModified: Timestamp(microseconds: Int64.max),
            version: "33333333-3333-4333-8333-333333333333",
            fileMeta: file,
            isPending: pending
        )
    }

    @Test("a record inserted and read by the hot path matches the SQL path's row", arguments: TestEngine.available)
    func hotPathMatchesSQLPath(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            var indexes: [Int64] = []
            for record in Self.records {
                let stored = try await store.insertRecord(StoredRecordText(record: record))
                #expect(stored.record.index > (indexes.last ?? 0))
                indexes.append(stored.record.index)
            }
            for (record, index) in zip(Self.records, indexes) {
                var expected = record
                expected.index = index
                let id = try Self.id(record.recordID)
                let text = try #require(try await store.recordText(id: id))
                #expect(text.record == StoredRecordText(record: expected).record)
                #expect(try text.decodedData() == record.data)
                #expect(try await store.record(id: id) == expected)
            }
            // `records(ids:)` (SQLKit's codec) reads the same rows, and leaves pending ones out.
            let listed = try await store.records(ids: try Self.records.map { try Self.id($0.recordID) })
            let expected = zip(Self.records, indexes).filter { !$0.0.isPending }.map { record, index in
                var stored = record
                stored.index = index
                return stored
            }
            #expect(listed.sorted { $0.index < $1.index } == expected)
            #expect(try await store.recordText(id: try Self.id("00000000-0000-4000-8000-00000000000f")) == nil)
        }
    }

    @Test(
        "RecordColumn, which every record statement and codec is rendered from, is exactly the records table's columns",
        arguments: TestEngine.available
    )
    func columnListIsTheSchema(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let query: SQLQueryString =
                switch engine {
                case .sqlite: "SELECT name FROM pragma_table_info('records')"
                case .postgres:
                    """
                    SELECT column_name AS name FROM information_schema.columns
                    WHERE table_name = 'records' AND table_schema = current_schema()
                    """
                }
            let names = try await store.database.raw(query).all().map { try $0.decode(column: "name", as: String.self) }
            // The columns outside the E3DB record: a revision record's blind tag and document tag, written only by
            // `POST /v2/sync/bulk` (SQLServerStore+Sync.swift) and read only by revs_diff; v1 inserts leave them
            // NULL. A re-wrapped file's prologue, written and read only by the file key and download routes
            // (SQLServerStore+FileKeys.swift).
            let outside: Set = ["sync_tag", "sync_doc", "file_prologue"]
            #expect(names.count == RecordColumn.allCases.count + outside.count)
            #expect(Set(names) == Set(RecordColumn.allCases.map(\.name)).union(outside))
        }
    }

    @Test("a duplicate record ID is refused by the hot path and leaves the first row", arguments: TestEngine.available)
    func duplicateInsertIsRefused(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let first = Self.records[0]
            _ = try await store.insertRecord(StoredRecordText(record: first))
            var second = first
            second.version = "44444444-4444-4444-8444-444444444444"
            await #expect(throws: (any Error).self) {
                _ = try await store.insertRecord(StoredRecordText(record: second))
            }
            let id = try Self.id(first.recordID)
            #expect(try await store.record(id: id)?.version == first.version)
            // The connection that failed is usable again.
            #expect(try await store.recordText(id: id)?.record.version == first.version)
        }
    }

    @Test("on SQLite, a column holding another storage class than the schema's is an error naming it, not a guess")
    func sqliteColumnOfAnotherClass() async throws {
        try await withStore(.sqlite) { store in
            let record = Self.records[0]
            _ = try await store.insertRecord(StoredRecordText(record: record))
            try await store.database.raw("UPDATE records SET created = 'yesterday'").run()
            let id = try Self.id(record.recordID)
            let error = await #expect(throws: RecordTableError.self) { _ = try await store.recordText(id: id) }
            #expect(error?.description == "records.created: expected an integer")
        }
    }
}
