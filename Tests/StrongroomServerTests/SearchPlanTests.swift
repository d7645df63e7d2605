// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import SQLKit
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// Paging through records by index must walk an index in order, never every record: a pull reads a whole type a page
/// at a time, and a plan that scans all records and sorts them makes a pull of n records cost O(n²) (it did: 100,000
/// revision records took minutes). SQLite's plans for the search and revs_diff statements, checked without timing.
@Suite struct SearchPlanTests {
    static let caller = "00000000-0000-4000-8000-00000000000a"

    static func query(_ scope: RecordQuery.Scope, types: [String] = [], writers: [String] = []) -> RecordQuery {
        RecordQuery(
            scope: scope,
            afterIndex: 5_000,
            limit: 1_000,
            writerIDs: writers,
            userIDs: [],
            recordIDs: [],
            types: types
        )
    }

    static let pages: [(String, RecordQuery)] = [
        ("readable, one type (a pull)", query(.readableBy(caller), types: ["sr1.t"])),
        ("readable, any type", query(.readableBy(caller))),
        ("readable, by writer", query(.readableBy(caller), writers: [caller])),
        ("own records, one type", query(.writtenBy(caller), types: ["sr1.t"])),
        ("own records, any type", query(.writtenBy(caller))),
    ]

    @Test("every search page walks an index in record order: no scan of all records, no sort of them")
    func searchPages() async throws {
        try await withPlans { plan in
            for (name, query) in Self.pages {
                let steps = try await plan(SQLServerStore.sql(matching: query))
                #expect(!steps.contains { $0.contains("records_pending") }, "\(name): \(steps)")
                #expect(!steps.contains { $0.hasPrefix("SCAN r") }, "\(name): \(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(name): \(steps)")
            }
        }
    }

    @Test("a search's data is read by primary key")
    func dataByID() async throws {
        try await withPlans { plan in
            let ids = try ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"].map {
                try #require(RecordID($0))
            }
            let steps = try await plan(SQLServerStore.sql(ids: ids))
            #expect(steps == ["SEARCH records USING INDEX sqlite_autoindex_records_1 (record_id=?)"], "\(steps)")
        }
    }

    @Test("revs_diff looks each tag up through the (type, tag) index")
    func revsDiff() async throws {
        try await withPlans { plan in
            let steps = try await plan(
                SQLServerStore.presentSyncTagsSQL(type: "sr1.t", tags: ["a", "b"], readableBy: Self.caller)
            )
            #expect(
                steps.contains { $0.contains("SEARCH r USING INDEX records_type_tag (type=? AND sync_tag=?)") },
                "\(steps)"
            )
        }
    }

    @Test(
        "replication's caps count through indexes: records per writer and type, revisions per document; file bytes are one row"
    )
    func capCounts() async throws {
        try await withPlans { plan in
            let perWriter = try await plan(SQLServerStore.syncRecordCountSQL(type: "sr1.t", writer: Self.caller))
            #expect(perWriter.allSatisfy { $0.contains("USING COVERING INDEX records_writer_type") }, "\(perWriter)")
            let perDocument = try await plan(
                SQLServerStore.syncDocumentCountsSQL(type: "sr1.t", writer: Self.caller, documents: ["a", "b"])
            )
            #expect(perDocument.contains { $0.contains("INDEX records_sync_doc") }, "\(perDocument)")
            #expect(!perDocument.contains { $0.hasPrefix("SCAN") }, "\(perDocument)")
            let bytes = try await plan(SQLServerStore.syncAttachmentBytesSQL(type: "sr1.t"))
            #expect(
                bytes == ["SEARCH sync_attachment_bytes USING INDEX sqlite_autoindex_sync_attachment_bytes_1 (type=?)"],
                "\(bytes)"
            )
        }
    }

    @Test("the long-polls' shared look asks who may read through two index lookups per caller, never a scan")
    func longPollReaders() async throws {
        try await withPlans { plan in
            let steps = try await plan(SQLServerStore.mayReadSQL(type: "sr1.t", callers: [Self.caller, "b", "c"]))
            #expect(steps.contains { $0.contains("INDEX records_writer_type (writer_id=? AND type=?)") }, "\(steps)")
            #expect(steps.contains { $0.contains("INDEX policies_reader (reader_id=?)") }, "\(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN records") || $0.hasPrefix("SCAN policies") }, "\(steps)")
        }
    }

    /// Runs `body` with a function giving the plan steps (`detail`) of a statement on a migrated SQLite store.
    func withPlans(
        _ body: @escaping @Sendable (@Sendable (SQLQueryString) async throws -> [String]) async throws -> Void
    ) async throws {
        var logger = Logger(label: "search-plan-test")
        logger.logLevel = .warning
        try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore { store in
                try await body { statement in
                    try await store.database.raw("EXPLAIN QUERY PLAN " + statement).all().map {
                        try $0.decode(column: "detail", as: String.self)
                    }
                }
            }
        }
    }
}
