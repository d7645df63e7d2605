// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

@testable import StrongroomServer

/// Group commit of record inserts: rows that arrive while one insert runs are written together in one statement,
/// each caller gets its own row's index or error, and nothing is answered before its statement ran.
@Suite struct GroupInsertTests {
    /// A writer that records each statement's rows; the first statement waits until `release` is called.
    final class GatedWriter: Sendable {
        let statements = Mutex<[[String]]>([])
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let failing: Set<String>
        let failsBatches: Bool

        init(failing: Set<String> = [], failsBatches: Bool = false) {
            self.failing = failing
            self.failsBatches = failsBatches
        }

        struct Refused: Error, Equatable { let id: String }

        var writer: GroupInsert.Writer {
            GroupInsert.Writer(
                insertOne: { row in try await self.write([row])[0] },
                insertMany: { rows in try await self.write(rows) }
            )
        }

        func write(_ rows: [RecordRow]) async throws -> [Int64] {
            let isFirst = statements.withLock { statements in
                statements.append(rows.map(\.recordID))
                return statements.count == 1
            }
            if isFirst { await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
            if let bad = rows.first(where: { failing.contains($0.recordID) }) { throw Refused(id: bad.recordID) }
            if rows.count > 1 && failsBatches { throw Refused(id: "batch") }
            return rows.map { Int64($0.recordID.dropFirst(3))! }
        }

        func release() async {
            while true {
                if let continuation = gate.withLock({ $0.take() }) {
                    continuation.resume()
                    return
                }
                await Task.yield()
            }
        }
    }

    static func row(_ number: Int) -> RecordRow {
        RecordRow(
            index: 0,
            recordID: "id-\(number)",
            writerID: "w",
            userID: "u",
            type: "t",
            plain: "{}",
            data: "{\"f\":\"x\"}",
            recordSignature: nil,
            created: 1,
            lastModified: 1,
            version: "v",
            fileMeta: nil,
            isPending: false
        )
    }

    /// Starts insert 0, waits until it holds the writer and inserts 1...`count` wait behind it, then releases it.
    static func run(
        _ writer: GatedWriter,
        count: Int
    ) async -> [Int: Result<Int64, any Error>] {
        let group = GroupInsert(writer: writer.writer)
        return await withTaskGroup(of: (Int, Result<Int64, any Error>).self) { tasks in
            for number in 0...count {
                tasks.addTask {
                    do { return (number, .success(try await group.insert(row(number)))) } catch {
                        return (number, .failure(error))
                    }
                }
                if number == 0 {
                    while writer.statements.withLock({ $0.isEmpty }) { await Task.yield() }
                }
            }
            while group.waitingCount < count { await Task.yield() }
            await writer.release()
            var outcomes: [Int: Result<Int64, any Error>] = [:]
            for await (number, outcome) in tasks { outcomes[number] = outcome }
            return outcomes
        }
    }

    @Test("inserts that wait behind a running one go in one statement, and each gets its own index")
    func waitingInsertsShareOneStatement() async throws {
        let writer = GatedWriter()
        let outcomes = await Self.run(writer, count: 10)
        for number in 0...10 { #expect(try outcomes[number]?.get() == Int64(number)) }
        let statements = writer.statements.withLock { $0 }
        #expect(statements.count == 2)
        #expect(statements.first == ["id-0"])
        #expect(Set(statements.last ?? []) == Set((1...10).map { "id-\($0)" }))
    }

    @Test("a statement holds at most maximumRows rows; the rest follow in the next")
    func batchesAreBounded() async throws {
        let writer = GatedWriter()
        let count = GroupInsert.maximumRows + 5
        let outcomes = await Self.run(writer, count: count)
        for number in 0...count { #expect(try outcomes[number]?.get() == Int64(number)) }
        let sizes = writer.statements.withLock { $0.map(\.count) }
        #expect(sizes == [1, GroupInsert.maximumRows, 5])
    }

    @Test("a batch that fails is retried row by row: only the bad row's caller sees the error")
    func failedBatchFallsBackRowByRow() async throws {
        let writer = GatedWriter(failing: ["id-4"])
        let outcomes = await Self.run(writer, count: 8)
        for number in 0...8 where number != 4 { #expect(try outcomes[number]?.get() == Int64(number)) }
        #expect(throws: GatedWriter.Refused(id: "id-4")) { try outcomes[4]?.get() }
        let sizes = writer.statements.withLock { $0.map(\.count) }
        #expect(sizes == [1, 8, 1, 1, 1, 1, 1, 1, 1, 1])
    }

    @Test("a batch whose statement fails as a whole still answers every row")
    func wholeBatchFailureStillAnswers() async throws {
        let writer = GatedWriter(failsBatches: true)
        let outcomes = await Self.run(writer, count: 3)
        for number in 0...3 { #expect(try outcomes[number]?.get() == Int64(number)) }
    }

    @Test("inserts arriving during a pause wait for it, then go together")
    func insertsWaitForAPause() async throws {
        let writer = GatedWriter()
        let group = GroupInsert(writer: writer.writer)
        let pauseEntered = AsyncStream<Void>.makeStream()
        let pauseEnds = AsyncStream<Void>.makeStream()
        let pause = Task {
            try await group.paused {
                pauseEntered.continuation.yield()
                for await _ in pauseEnds.stream { break }
                return writer.statements.withLock { $0.count }
            }
        }
        for await _ in pauseEntered.stream { break }
        let inserts = Task {
            try await withThrowingTaskGroup(of: Int64.self) { tasks in
                for number in 1...5 { tasks.addTask { try await group.insert(Self.row(number)) } }
                return try await tasks.reduce(into: Set<Int64>()) { $0.insert($1) }
            }
        }
        while group.waitingCount < 5 { await Task.yield() }
        pauseEnds.continuation.yield()
        #expect(try await pause.value == 0)
        // The first insert's statement waits at the writer's gate; release it and let the rest follow.
        await writer.release()
        #expect(try await inserts.value == Set(1...5))
        let sizes = writer.statements.withLock { $0.map(\.count) }
        #expect(sizes.reduce(0, +) == 5)
        #expect(sizes.count <= 2)
    }

    @Test("on SQLite, concurrent inserts each get the index of their own row, and a duplicate ID fails alone")
    func concurrentInsertsOnSQLite() async throws {
        var logger = Logger(label: "group-insert-test")
        logger.logLevel = .warning
        try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore { store in
                let existing = PreparedStatementTests.records[0]
                _ = try await store.insertRecord(StoredRecordText(record: existing))
                let outcomes = await withTaskGroup(of: (StoredRecord, Result<Int64, any Error>).self) { tasks in
                    for number in 0..<200 {
                        var record = existing
                        if number % 20 != 7 {
                            record.recordID = UUID().uuidString.lowercased()
                        }
                        record.data = ["f": "row \(number)"]
                        tasks.addTask { [record] in
                            do {
                                return (
                                    record,
                                    .success(
                                        try await store.insertRecord(StoredRecordText(record: record)).record.index
                                    )
                                )
                            } catch { return (record, .failure(error)) }
                        }
                    }
                    var outcomes: [(StoredRecord, Result<Int64, any Error>)] = []
                    for await outcome in tasks { outcomes.append(outcome) }
                    return outcomes
                }
                var indexes: Set<Int64> = []
                var refused = 0
                for (record, outcome) in outcomes {
                    guard case .success(let index) = outcome else {
                        #expect(record.recordID == existing.recordID)
                        refused += 1
                        continue
                    }
                    #expect(indexes.insert(index).inserted)
                    let id = try #require(RecordID(record.recordID))
                    let stored = try #require(try await store.recordText(id: id))
                    #expect(stored.record.index == index)
                    #expect(try stored.decodedData() == record.data)
                }
                #expect(refused == 10)
                #expect(indexes.count == 190)
                // The duplicate rows left the first one as it was.
                let existingID = try #require(RecordID(existing.recordID))
                let first = try #require(try await store.record(id: existingID))
                #expect(first.data == existing.data)
            }
        }
    }
}
