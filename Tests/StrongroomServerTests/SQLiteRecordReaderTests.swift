// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import SQLiteKit
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The embedded engine's in-place record read: it sees every write the serving connection acknowledged, gives up
/// within its bound instead of waiting on a lock, never opens more connections than it may, and closes with the
/// database.
@Suite struct SQLiteRecordReaderTests {
    static let record = PreparedStatementTests.records[1]

    @Test("the reader calls the very SQLite library sqlite-nio's connections use")
    func symbols() async throws {
        let connection = try await SQLiteConnection.open(storage: .memory)
        let rows = try await connection.query("SELECT sqlite_version() AS version")
        try await connection.close()
        let serving = try #require(rows.first?.column("version")?.string)
        #expect(
            SQLiteRecordReader.libraryVersion == serving,
            """
            the in-place reader (SQLiteRecordReader.swift, through sqlite-nio's VaporCSQLite) links SQLite \
            \(SQLiteRecordReader.libraryVersion) but sqlite-nio's connections use \(serving): a sqlite-nio update \
            changed its bundled library or its sqlite_nio_ symbol prefix; re-check that file before moving the pin \
            in Package.swift
            """
        )
    }

    @Test("reads in place what the serving connection just committed, and nil for an unknown ID")
    func readsCommittedRows() async throws {
        try await withDatabase { database in
            let stored = try await database.store.insertRecord(StoredRecordText(record: Self.record))
            guard case .read(let row) = try database.records.reader.row(recordID: Self.record.recordID) else {
                Issue.record("the read did not run in place")
                return
            }
            var expected = Self.record
            expected.index = stored.record.index
            let text = try database.store.recordText(try #require(row))
            #expect(text.record == StoredRecordText(record: expected).record)
            #expect(try text.decodedData() == Self.record.data)
            guard case .read(nil) = try database.records.reader.row(recordID: "00000000-0000-4000-8000-00000000000f")
            else {
                Issue.record("an unknown ID did not read as nil in place")
                return
            }
            // One connection opened, and it is idle again.
            #expect(database.records.reader.openConnections == 1)
        }
    }

    @Test("a database locked by a writer: the reader gives up within its bound, keeps its connection, reads again")
    func givesUpOnALock() async throws {
        try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger).withStore { store in
                _ = try await store.insertRecord(StoredRecordText(record: Self.record))
            }
            // In WAL mode nothing stops a reader; with a rollback journal, a writer's exclusive lock does.
            let path = directory.appending(path: "strongroom.sqlite").path
            let holder = try await SQLiteConnection.open(storage: .file(path: path))
            let reader = SQLiteRecordReader(path: path, logger: Self.logger)
            let latecomer = SQLiteRecordReader(path: path, logger: Self.logger)
            defer {
                reader.close()
                latecomer.close()
            }
            do {
                _ = try await holder.query("PRAGMA journal_mode = DELETE")
                guard case .read = try reader.row(recordID: Self.record.recordID) else {
                    Issue.record("the reader did not read an unlocked database")
                    try await holder.close()
                    return
                }
                _ = try await holder.query("BEGIN EXCLUSIVE")
                // A prepared connection is stopped by the lock when it steps, a new one while it reads the schema.
                for (reader, connections) in [(reader, 1), (latecomer, 0)] {
                    guard case .unavailable = try reader.row(recordID: Self.record.recordID) else {
                        Issue.record("the reader read past an exclusive lock")
                        continue
                    }
                    #expect(reader.openConnections == connections)
                }
                // Each gave up after its own busy timeout, not the serving connection's 5 s.
                #expect(ReaderConnection.busyMilliseconds == 10)
                _ = try await holder.query("COMMIT")
            } catch {
                try await holder.close()
                throw error
            }
            try await holder.close()
            for reader in [reader, latecomer] {
                try expectReadsRecord(reader, "the reader did not read again once the lock was gone")
                #expect(reader.openConnections == 1)
            }
        }
    }

    @Test("never more connections than its maximum: the next caller reads through the serving connection")
    func boundedConnections() async throws {
        try await withDatabase { database in
            _ = try await database.store.insertRecord(StoredRecordText(record: Self.record))
            let reader = SQLiteRecordReader(
                path: database.records.reader.path,
                logger: Self.logger,
                maximumConnections: 2
            )
            defer { reader.close() }
            let first = try #require(reader.take())
            let second = try #require(reader.take())
            #expect(reader.take() == nil)
            guard case .unavailable = try reader.row(recordID: Self.record.recordID) else {
                Issue.record("a third connection was opened")
                return
            }
            #expect(reader.openConnections == 2)
            reader.give(back: first, keep: true)
            reader.give(back: second, keep: false)
            #expect(reader.openConnections == 1)
            try expectReadsRecord(reader, "an idle connection was not reused")
            #expect(reader.openConnections == 1)
        }
    }

    @Test("closed with the database: later reads are unavailable and a connection in use closes as it comes back")
    func closes() async throws {
        try await withDatabase { database in
            _ = try await database.store.insertRecord(StoredRecordText(record: Self.record))
            let reader = SQLiteRecordReader(path: database.records.reader.path, logger: Self.logger)
            let inUse = try #require(reader.take())
            _ = try reader.row(recordID: Self.record.recordID)
            #expect(reader.openConnections == 2)
            reader.close()
            #expect(reader.openConnections == 1)
            reader.give(back: inUse, keep: true)
            #expect(reader.openConnections == 0)
            guard case .unavailable = try reader.row(recordID: Self.record.recordID) else {
                Issue.record("a closed reader read")
                return
            }
        }
    }

    @Test("a column of another storage class throws, and the connection that read it is not kept")
    func badColumn() async throws {
        try await withDatabase { database in
            _ = try await database.store.insertRecord(StoredRecordText(record: Self.record))
            try await database.store.database.raw("UPDATE records SET rec_sig = x'07'").run()
            let error = #expect(throws: RecordTableError.self) {
                _ = try database.records.reader.row(recordID: Self.record.recordID)
            }
            #expect(error?.description == "records.rec_sig: expected text or NULL")
            #expect(database.records.reader.openConnections == 0)
        }
    }

    @Test("a connection that cannot be opened: reads are unavailable, and tried again only after the delay")
    func openFailure() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "later.sqlite").path
            // No file yet (a read-only connection does not create one), then a file without the records table.
            let waiting = SQLiteRecordReader(path: path, logger: Self.logger, retryDelay: .seconds(3600))
            let retrying = SQLiteRecordReader(path: path, logger: Self.logger, retryDelay: .zero)
            for reader in [waiting, retrying] {
                guard case .unavailable = try reader.row(recordID: Self.record.recordID) else {
                    Issue.record("a reader without a database read")
                    continue
                }
                #expect(reader.openConnections == 0)
            }
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger).withStore { store in
                _ = try await store.insertRecord(StoredRecordText(record: Self.record))
            }
            try FileManager.default.moveItem(atPath: directory.appending(path: "strongroom.sqlite").path, toPath: path)
            guard case .unavailable = try waiting.row(recordID: Self.record.recordID) else {
                Issue.record("the reader tried again before its delay")
                return
            }
            try expectReadsRecord(retrying, "the reader did not try again after its delay")
        }
    }

    /// Reads the test record through `reader`, which must run the read in place and find it.
    func expectReadsRecord(
        _ reader: SQLiteRecordReader,
        _ failure: Comment,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        guard case .read(let row) = try reader.row(recordID: Self.record.recordID) else {
            Issue.record(failure, sourceLocation: sourceLocation)
            return
        }
        #expect(row?.recordID == Self.record.recordID, sourceLocation: sourceLocation)
    }

    static let logger: Logger = {
        var logger = Logger(label: "record-reader-test")
        logger.logLevel = .warning
        return logger
    }()

    func withDatabase(_ body: @escaping @Sendable (EmbeddedDatabase) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let database = try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: Self.logger)
            do {
                try await body(database)
            } catch {
                try await database.close()
                throw error
            }
            try await database.close()
        }
    }
}
