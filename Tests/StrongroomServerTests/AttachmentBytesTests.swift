// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// A replicated type's attachment bytes are a running total kept by triggers (migration steps 15 and 16): it counts
/// committed files only and follows every commit and delete of a file record, whichever path makes it, starts from
/// the file records stored before the step, and a commit is checked against the cap in its own transaction, so
/// concurrent uploads never take more than the room there is — and a declared file that is never uploaded holds none.
@Suite struct AttachmentBytesTests {
    static let alice = "11111111-1111-4111-8111-111111111111"
    static let bob = "22222222-2222-4222-8222-222222222222"

    /// A pending file record of `type` declaring `size` bytes, created at `time` (microseconds).
    static func file(_ writer: String, _ type: String, size: Int64, time: Int64 = 1_000) -> StoredRecordText {
        var record = StoredRecord.new(
            by: writer,
            type: type,
            plain: ["sr.a": "address"],
            data: [:],
            recordSignature: nil,
            now: Timestamp(microseconds: time)
        )
        record.fileMeta = FileMeta(checksum: "1B2M2Y8AsgTpgAmY7PhCfg==", compression: "raw", size: size)
        record.isPending = true
        return StoredRecordText(record: record)
    }

    /// Every type's total as the table keeps it, and as adding up the file records gives it.
    static func totals(_ store: SQLServerStore) async throws -> (kept: [String: Int64], summed: [String: Int64]) {
        var kept: [String: Int64] = [:]
        for row in try await store.database.raw("SELECT type, bytes FROM sync_attachment_bytes").all() {
            kept[try row.decode(column: "type", as: String.self)] = try row.decode(column: "bytes", as: Int64.self)
        }
        var summed: [String: Int64] = [:]
        for row in try await store.database.raw(
            "SELECT type, file_meta FROM records WHERE file_meta IS NOT NULL AND NOT pending"
        ).all() {
            let type = try row.decode(column: "type", as: String.self)
            let meta = try JSONDecoder().decode(
                FileMeta.self,
                from: Data(try row.decode(column: "file_meta", as: String.self).utf8)
            )
            if type.hasPrefix(ReplicatedType.prefix) { summed[type, default: 0] += meta.size }
        }
        return (kept, summed)
    }

    static func insert(
        _ store: SQLServerStore,
        _ text: StoredRecordText,
        records: Int = 100,
        bytes: Int64 = 1_000
    )
        async throws
    {
        _ = try await store.insertReplicatedRecord(text, maximumPerWriter: records, maximumBytes: bytes)
    }

    /// Declares and commits a file of a replicated type (its upload is not the store's business).
    static func commit(
        _ store: SQLServerStore,
        _ text: StoredRecordText,
        records: Int = 100,
        bytes: Int64 = 1_000
    ) async throws {
        try await insert(store, text, records: records, bytes: bytes)
        let id = try #require(RecordID(text.record.recordID))
        let committed = try await store.commitReplicatedFile(
            id: id,
            lastModified: text.record.lastModified,
            maximumBytes: bytes
        )
        try #require(committed != nil)
    }

    @Test(
        "the total follows commits, refusals and deletes; pending files count nothing",
        arguments: TestEngine.available
    )
    func follows(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let kept = Self.file(Self.alice, "sr1.t", size: 100)
            try await Self.commit(store, kept)
            try await Self.commit(store, Self.file(Self.bob, "sr1.t", size: 200, time: 5_000))
            try await Self.commit(store, Self.file(Self.alice, "sr1.u", size: 7))
            _ = try await store.insertRecord(Self.file(Self.alice, "photos", size: 50))
            // Declared and never uploaded: no room held.
            try await Self.insert(store, Self.file(Self.bob, "sr1.t", size: 600))
            #expect(try await Self.totals(store).kept == ["sr1.t": 300, "sr1.u": 7], "only committed, replicated")
            // Refused, by bytes (at the declaration and at the commit) and by records: nothing counted.
            await #expect(throws: ServerError.self) {
                try await Self.insert(store, Self.file(Self.bob, "sr1.t", size: 701))
            }
            let late = Self.file(Self.bob, "sr1.t", size: 650, time: 5_000)
            try await Self.insert(store, late)
            try await Self.commit(store, Self.file(Self.alice, "sr1.t", size: 100, time: 5_000))
            await #expect(throws: ServerError.self) {
                _ = try await store.commitReplicatedFile(
                    id: try #require(RecordID(late.record.recordID)),
                    lastModified: late.record.lastModified,
                    maximumBytes: 1_000
                )
            }
            await #expect(throws: ServerError.self) {
                try await Self.insert(store, Self.file(Self.alice, "sr1.u", size: 1), records: 1)
            }
            #expect(try await Self.totals(store).kept == ["sr1.t": 400, "sr1.u": 7])
            // A record deleted, the pending sweep, a type emptied.
            let id = try #require(RecordID(kept.record.recordID))
            guard case .done = try await store.deleteRecord(id: id, expectedVersion: kept.record.version) else {
                Issue.record("the record was not deleted")
                return
            }
            let other = try #require(
                try await store.records(
                    matching: .init(
                        scope: .writtenBy(Self.alice),
                        afterIndex: 0,
                        limit: 100,
                        writerIDs: [],
                        userIDs: [],
                        recordIDs: [],
                        types: ["sr1.u"],
                        includesData: false
                    )
                ).first
            )
            guard
                case .done = try await store.deleteRecord(
                    id: try #require(RecordID(other.recordID)),
                    expectedVersion: other.version
                )
            else {
                Issue.record("the record was not deleted")
                return
            }
            _ = try await store.deletePendingFiles(createdBefore: Timestamp(microseconds: 10_000))
            let (after, summed) = try await Self.totals(store)
            #expect(after == ["sr1.t": 300], "sr1.u's row goes with its last file; pending files swept uncounted")
            #expect(after == summed)
        }
    }

    @Test("concurrent uploads and checkpoints never take more than the room", arguments: TestEngine.available)
    func concurrent(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
                for number in 0..<24 {
                    group.addTask {
                        // Bytes: room for 5 files of 10 across both writers, counted at their commits.
                        let writer = number.isMultiple(of: 2) ? Self.alice : Self.bob
                        do {
                            try await Self.commit(store, Self.file(writer, "sr1.c", size: 10), bytes: 55)
                            return true
                        } catch let error as ServerError where error.code == .tooLarge {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 5)
            let (kept, summed) = try await Self.totals(store)
            #expect(kept == ["sr1.c": 50] && summed == kept)
            // The refused ones stay pending (the route deletes them; here, the sweep): no writer's files are lost.
            _ = try await store.deletePendingFiles(createdBefore: Timestamp(microseconds: 10_000))
            let perWriter = try await recordsPerWriter(store)
            #expect(perWriter.values.reduce(0, +) == 5, "\(perWriter)")
            // Records: 4 per writer, pending files among them.
            let capped = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            try await Self.insert(store, Self.file(Self.bob, "sr1.d", size: 1), records: 4, bytes: 55)
                            return true
                        } catch let error as ServerError where error.code == .tooLarge {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(capped == 4)
            // Checkpoints (no file): alice's records, capped at 6 of the type, whatever she held before.
            let held = perWriter[Self.alice, default: 0]
            let checkpoints = try await withThrowingTaskGroup(of: Bool.self) { group in
                for number in 0..<12 {
                    group.addTask {
                        let checkpoint = StoredRecord.new(
                            by: Self.alice,
                            type: "sr1.c",
                            plain: ["sr.c": "replica-\(number)"],
                            data: ["body": "x"],
                            recordSignature: nil,
                            now: Timestamp(microseconds: 1)
                        )
                        do {
                            _ = try await store.insertReplicatedRecord(
                                StoredRecordText(record: checkpoint),
                                maximumPerWriter: 6,
                                maximumBytes: 55
                            )
                            return true
                        } catch let error as ServerError where error.code == .tooLarge {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(checkpoints == 6 - held)
            #expect(try await recordsPerWriter(store)[Self.alice] == 6)
        }
    }

    @Test(
        "steps 15 and 16 start each total from the committed file records stored before them",
        arguments: TestEngine.available
    )
    func migration(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            try await Self.commit(store, Self.file(Self.alice, "sr1.t", size: 30))
            try await Self.commit(store, Self.file(Self.bob, "sr1.t", size: 12))
            try await Self.commit(store, Self.file(Self.bob, "sr1.v", size: 5))
            try await Self.insert(store, Self.file(Self.bob, "sr1.v", size: 400))  // pending: not counted
            _ = try await store.insertRecord(Self.file(Self.alice, "SR1.upper", size: 50))
            try await rewindSchema(store, below: 15)
            var committed = Self.file(Self.alice, "sr1.v", size: 1)
            committed.record.isPending = false
            _ = try await store.insertRecord(committed)
            try await store.migrate()
            let (kept, summed) = try await Self.totals(store)
            #expect(kept == ["sr1.t": 42, "sr1.v": 6])
            #expect(kept == summed)
            // Step 16 alone, over totals step 15 kept with pending files in them.
            try await rewindSchema(store, below: 16)
            try await store.database.raw("UPDATE sync_attachment_bytes SET bytes = bytes + 400 WHERE type = 'sr1.v'")
                .run()
            try await store.migrate()
            #expect(try await Self.totals(store).kept == ["sr1.t": 42, "sr1.v": 6])
        }
    }

    /// How many records each writer keeps.
    func recordsPerWriter(_ store: SQLServerStore) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await store.database.raw("SELECT writer_id, count(*) AS n FROM records GROUP BY writer_id").all()
        {
            counts[try row.decode(column: "writer_id", as: String.self)] = try row.decode(column: "n", as: Int.self)
        }
        return counts
    }
}
