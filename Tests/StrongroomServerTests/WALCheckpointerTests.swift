// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import SQLiteKit
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The embedded database's background checkpointer: a long log is copied into the database file and restarted
/// (the next commit writes it from the start), without losing or changing a row, and the serving connection keeps
/// SQLite's own checkpoint as the bound when the checkpointer does not run.
@Suite struct WALCheckpointerTests {
    static func logger() -> Logger {
        var logger = Logger(label: "wal-checkpointer-test")
        logger.logLevel = .warning
        return logger
    }

    static func record(_ number: Int) -> StoredRecord {
        var record = PreparedStatementTests.records[0]
        record.recordID = String(format: "00000000-0000-4000-8000-%012d", number)
        record.data = ["f": String(repeating: "\(number % 10)", count: 6000)]
        return record
    }

    @Test("a long log is checkpointed and restarted, and every row reads back as written")
    func longLogIsRestarted() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger())
            try await database.withStore { store in
                var checkpointer = database.records.checkpointer
                checkpointer.restartFrames = 64
                for number in 0..<60 { _ = try await store.insertRecord(StoredRecordText(record: Self.record(number))) }
                let restarted = try await checkpointer.checkpointAndRestart()
                #expect(restarted.logFrames >= 64)
                #expect(restarted.checkpointedFrames == restarted.logFrames)
                // The next commit starts the log again: it holds only that commit's frames.
                _ = try await store.insertRecord(StoredRecordText(record: Self.record(60)))
                let next = try await checkpointer.checkpoint(.passive)
                #expect(next.logFrames < 16)
                #expect(next.checkpointedFrames == next.logFrames)
                // A short log is only checkpointed, not restarted.
                let short = try await checkpointer.checkpointAndRestart()
                #expect(short.logFrames == next.logFrames)
                for number in 0...60 {
                    let id = try #require(RecordID(Self.record(number).recordID))
                    let stored = try #require(try await store.recordText(id: id))
                    #expect(try stored.decodedData() == Self.record(number).data)
                }
            }
        }
    }

    @Test("the serving connection's own checkpoint threshold is the fallback bound")
    func fallbackThresholdIsSet() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger())
            try await database.withStore { _ in
                let row = try await database.connection.query("PRAGMA wal_autocheckpoint").first
                #expect(row?.column("wal_autocheckpoint") == .integer(EmbeddedDatabase.fallbackCheckpointPages))
                let mode = try await database.records.checkpointer.connection.query("PRAGMA journal_mode").first
                #expect(mode?.column("journal_mode") == .text("wal"))
            }
        }
    }

    @Test("running as a service, it checkpoints after commits and closes both connections on cancellation")
    func serviceCheckpointsAndCloses() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger())
            let path = directory.path + "/strongroom.sqlite"
            func fileSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
            _ = try await database.records.checkpointer.checkpoint(.passive)
            let before = try fileSize()
            let service = Task { try await database.run() }
            for number in 0..<20 {
                _ = try await database.store.insertRecord(StoredRecordText(record: Self.record(number)))
            }
            // Rows reach the database file itself only through a checkpoint; nothing else runs one here (the
            // serving connection's threshold is far away).
            var caughtUp = false
            for _ in 0..<100 where !caughtUp {
                try await Task.sleep(for: WALCheckpointer.interval)
                caughtUp = try fileSize() >= before + 20 * 6000
            }
            #expect(caughtUp)
            service.cancel()
            try await service.value
            await #expect(throws: (any Error).self) { _ = try await database.records.checkpointer.checkpoint(.passive) }
        }
    }
}
