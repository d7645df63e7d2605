// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomSQLite
import StrongroomWire
import Testing

@testable import StrongroomDatastore

/// How the work of each paging path grows with the datastore, counted in SQLite virtual-machine instructions (the
/// rows a plan visits show up there, whatever the machine's speed), at 1,000 and 10,000 documents: a full scan, the
/// changes feed, index catch-up and the conflict listing must grow linearly (a plan that walks the whole table for
/// every page grows with the square, 100× for 10× the documents); a first page must not grow with the datastore.
@Suite(.serialized) struct DatastoreComplexityTests {
    /// The instructions `operation` makes SQLite run on the datastore's connection.
    private static func steps(_ store: Datastore, _ operation: () async throws -> Void) async throws -> Int {
        try await store.withConnection { connection throws(DatastoreError) in connection.startCountingSteps() }
        do {
            try await operation()
        } catch {
            _ = try await store.withConnection { connection throws(DatastoreError) in connection.stopCountingSteps() }
            throw error
        }
        return try await store.withConnection { connection throws(DatastoreError) in connection.stopCountingSteps() }
    }

    /// The work of every measured path in a datastore of `count` documents (about 100 bytes each).
    private struct Work {
        var scan = 0
        var firstPage = 0
        var changes = 0
        var conflicts = 0
        var catchUp = 0
    }

    private static func work(documents count: Int) async throws -> Work {
        try await withDatastore(.encrypted) { store, _ in
            try await store.ensureIndexed(fields: ["n"], name: "by_n")
            for start in stride(from: 0, to: count, by: 1000) {
                try await store.bulkWrite(
                    (start..<min(start + 1000, count)).map { index in
                        .create(
                            id: String(format: "doc-%06d", index),
                            body: ["name": .string("document \(index)"), "n": .number(Double(index))]
                        )
                    }
                )
            }
            var work = Work()
            work.catchUp = try await steps(store) { try await store.updateAllIndexes() }
            work.scan = try await steps(store) {
                let found = try await store.find(selector: ["name": .string("document 7")])
                #expect(found.count == 1)
            }
            work.firstPage = try await steps(store) {
                let page = try await store.allDocuments(limit: 100)
                #expect(page.count == 100)
            }
            work.changes = try await steps(store) {
                var since: Int64 = 0
                var seen = 0
                while true {
                    let page = try await store.changes(since: since, limit: 1000)
                    if page.changes.isEmpty { break }
                    seen += page.changes.count
                    since = page.lastSequence
                }
                #expect(seen == count)
            }
            work.conflicts = try await steps(store) {
                let conflicted = try await store.conflictedDocumentIDs()
                #expect(conflicted.isEmpty)
            }
            return work
        }
    }

    @Test("scan, changes, index catch-up and conflict listing grow linearly; a first page stays flat")
    func workGrowsLinearly() async throws {
        let small = try await Self.work(documents: 1000)
        let large = try await Self.work(documents: 10_000)
        func ratio(_ path: KeyPath<Work, Int>) -> Double {
            Double(large[keyPath: path]) / Double(max(small[keyPath: path], 1))
        }
        let report =
            "1k → 10k documents: scan ×\(ratio(\.scan)), changes ×\(ratio(\.changes)), catch-up ×\(ratio(\.catchUp)), first page ×\(ratio(\.firstPage)), conflicts ×\(ratio(\.conflicts))"
        print(report)
        // Linear is ×10 (measured ×10.0); allow a B-tree level more (×12). Quadratic would be ×100.
        #expect(ratio(\.scan) < 12, "\(report)")
        #expect(ratio(\.changes) < 12, "\(report)")
        #expect(ratio(\.catchUp) < 12, "\(report)")
        #expect(ratio(\.conflicts) < 12, "\(report)")
        // Independent of the datastore's size: a deeper B-tree at most.
        #expect(ratio(\.firstPage) < 2, "\(report)")
    }
}
