// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomSQLite

/// The SQLCipher layer under the datastore: encrypted files hold no plaintext anywhere (database, WAL, temp
/// files), a wrong or missing key is a typed error that reads nothing, and the stock `sqlcipher` shell opens a file
/// with the documented settings.
@Suite struct ConnectionTests {
    static func key(_ byte: UInt8) -> SecureBytes { SecureBytes(copying: [UInt8](repeating: byte, count: 32)) }
    static let canary = "CANARY-\(UUID().uuidString)"

    /// A WAL database with 200 rows holding the canary, left open so the WAL still holds them.
    static func populate(_ path: String, key: SecureBytes?) throws -> Connection {
        let connection = try Connection(path: path, key: key)
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        let insert = try connection.prepare("INSERT INTO docs (body) VALUES (?)")
        try connection.transaction(mapping: { $0 }) { () throws(SQLiteError) in
            for index in 0..<200 {
                try insert.bind("\(canary) document \(index)", at: 1)
                _ = try insert.step()
                insert.reset()
            }
        }
        return connection
    }

    @Test("an encrypted database round-trips; its file and WAL hold no plaintext; temp storage is in memory")
    func encrypted() throws {
        try withTemporaryDirectorySync { directory in
            let path = directory.appending(path: "store.db").path
            let connection = try Self.populate(path, key: Self.key(7))
            // A sort over a tiny cache spills to temp storage, which must stay in memory.
            try connection.execute("PRAGMA cache_size = 2")
            let sorted = try connection.prepare("SELECT body FROM docs ORDER BY body DESC")
            var count = 0
            while try sorted.step() { count += 1 }
            #expect(count == 200)
            #expect(try connection.scalarText("PRAGMA cipher_version")?.hasPrefix("4.") == true)
            #expect(try connection.scalarText("PRAGMA temp_store") == "2", "2 is MEMORY")
            #expect(try PlaintextScan.scan(directory, for: [Self.canary, "docs", "body"]).isEmpty)
            let header = try Data(contentsOf: directory.appending(path: "store.db")).prefix(16)
            #expect(header != Data("SQLite format 3\u{0}".utf8))
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("a wrong key, no key, or a key for a plaintext file is notADatabase, and nothing is read")
    func wrongKey() throws {
        try withTemporaryDirectorySync { directory in
            let path = directory.appending(path: "store.db").path
            _ = try Self.populate(path, key: Self.key(7))
            for attempt in [Self.key(8), nil] {
                let error = #expect(throws: SQLiteError.self) { _ = try Connection(path: path, key: attempt) }
                #expect(error?.code == .notADatabase)
            }
            let plain = directory.appending(path: "plain.db").path
            _ = try Self.populate(plain, key: nil)
            let error = #expect(throws: SQLiteError.self) { _ = try Connection(path: plain, key: Self.key(7)) }
            #expect(error?.code == .notADatabase)
            // The right key still opens everything.
            #expect(try Connection(path: path, key: Self.key(7)).scalarText("SELECT count(*) FROM docs") == "200")
        }
    }

    @Test("the stock sqlcipher shell reads the file with the documented PRAGMA key and cipher settings")
    func stockShell() async throws {
        let shell = URL(fileURLWithPath: "/usr/bin/sqlcipher")
        try #require(FileManager.default.isExecutableFile(atPath: shell.path), "run Scripts/install-sqlcipher.sh")
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "store.db").path
            do {
                let connection = try Self.populate(path, key: Self.key(0xA5))
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let hex = String(repeating: "a5", count: 32)
            let script =
                (["PRAGMA key = \"x'\(hex)'\";"] + Connection.cipherSettings.map { $0 + ";" })
                .joined(separator: "\n") + "\nSELECT count(*), min(body) FROM docs;\n"
            let input = directory.appending(path: "commands.sql")
            try Data(script.utf8).write(to: input)
            let outcome = try await ExternalProcess.run(shell, arguments: [path, ".read \(input.path)"])
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.output.contains("200|\(Self.canary) document 0"), "\(outcome.output)")
        }
    }
}

/// ``withTemporaryDirectory`` for synchronous bodies.
func withTemporaryDirectorySync<R>(_ body: (URL) throws -> R) throws -> R {
    let url = FileManager.default.temporaryDirectory.appending(path: "strongroom-sqlite-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }  // best effort
    return try body(url)
}
