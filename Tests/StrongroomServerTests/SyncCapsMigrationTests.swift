// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// Migration 13 gives the revision records stored before it their document tag (from their plain meta), so a
/// document's history written before an upgrade counts against `syncRevisionsPerDocument` like one written after.
@Suite struct SyncCapsMigrationTests {
    static let writer = "11111111-1111-4111-8111-111111111111"

    static func revision(
        _ tag: String,
        of document: String
    ) -> (record: StoredRecordText, tag: String, document: String) {
        let record = StoredRecord.new(
            by: writer,
            type: "sr1.t",
            plain: ["sr.v": "1", "sr.d": document, "sr.r": tag, "note": "\u{0}é\"\\"],
            data: ["body": "x"],
            recordSignature: nil,
            now: Timestamp(microseconds: 1)
        )
        return (StoredRecordText(record: record), tag, document)
    }

    @Test("step 13 backfills the document tag of revision records stored before it", arguments: TestEngine.available)
    func backfill(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let stored = [
                Self.revision("r1", of: "d-1"), Self.revision("r2", of: "d-1"), Self.revision("r3", of: "d_2"),
            ]
            _ = try await store.insertSyncRecords(stored, maximumPerWriter: 100, maximumPerDocument: 2)
            try await rewindSchema(store, below: 13)
            try await store.migrate()
            let rows = try await store.database.raw("SELECT sync_tag, sync_doc FROM records ORDER BY sync_tag").all()
            let pairs = try rows.map {
                [
                    try $0.decode(column: "sync_tag", as: String.self),
                    try $0.decode(column: "sync_doc", as: String.self),
                ]
            }
            #expect(pairs == [["r1", "d-1"], ["r2", "d-1"], ["r3", "d_2"]])
            await #expect(throws: ServerError.self, "d-1 holds its two revisions already") {
                _ = try await store.insertSyncRecords(
                    [Self.revision("r4", of: "d-1")],
                    maximumPerWriter: 100,
                    maximumPerDocument: 2
                )
            }
            let room = try await store.insertSyncRecords(
                [Self.revision("r5", of: "d_2")],
                maximumPerWriter: 100,
                maximumPerDocument: 2
            )
            #expect(room.map(\.created) == [true])
        }
    }
}
