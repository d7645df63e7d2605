// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLiteKit
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

/// The server on SQLite killed at seeded crash points (``CrashPoints``: just before its Nth durable file operation)
/// while four writers send records through its group commit: after a restart every acknowledged write is there with
/// the ciphertext it carried, and the database passes `PRAGMA integrity_check`. The count includes start-up, so
/// some points land in migration or registration: the server must then start again all the same.
@Suite struct ServerCrashPointTests {
    static let writers = 4
    static let writesPerWriter = 50
    static let token = "crash-point-token"

    @Test("group commit: nothing acknowledged is lost at any crash point")
    func groupCommit() async throws {
        let library = try await CrashPoints.library()
        let total = try await withTemporaryDirectory { directory in
            let countFile = directory.appending(path: "operations")
            let environment = CrashPoints.environment(library: library, crashAt: nil, countFile: countFile)
            let written = try await burst(in: directory, environment: environment)
            try #require(written.records.count == Self.writers * Self.writesPerWriter, "the counting run lost writes")
            return try CrashPoints.count(in: countFile)
        }
        let points = CrashPoints.points(total: total, workload: "server group commit")
        print(
            "crash points: server group commit: \(total) operations, seed \(CrashPoints.seed), killed before \(points)"
        )
        for point in points {
            let crash = CrashPoints.describe(workload: "server group commit", point: point, total: total)
            try await withTemporaryDirectory { directory in
                let environment = CrashPoints.environment(library: library, crashAt: point)
                let written = try await burst(in: directory, environment: environment)
                print("crash points: server group commit: before \(point): \(written.records.count) acknowledged")
                try await verify(written, in: directory, crash: crash)
            }
        }
    }

    /// Starts the server in `directory` with `environment`, writes until every writer is done or the server is gone,
    /// stops it if it still runs, and returns what it acknowledged (and the client, when registration got through).
    private func burst(in directory: URL, environment: [String: String]) async throws -> Written {
        let server: ServerProcess
        do {
            server = try await ServerProcess(
                arguments: [
                    "--data-directory", directory.appending(path: "data").path, "--registration-token", Self.token,
                ],
                environment: environment
            )
        } catch {
            return Written(client: nil, records: [:])  // killed while starting
        }
        let http = HTTP(base: server.baseURL)
        guard let client = try? await http.register(token: Self.token) else {
            server.stop()
            return Written(client: nil, records: [:])
        }
        let key = AccessKey()
        let acknowledged = Acknowledged()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    for index in 0..<Self.writesPerWriter {
                        let fields = ["n": "\(writer)-\(index)"]
                        guard let (id, data) = await http.writeEncrypted(fields, type: "crash", key: key, as: client)
                        else { return }  // the server died
                        await acknowledged.add(id, data)
                    }
                }
            }
        }
        if server.isRunning { server.stop() }
        return Written(client: client, records: await acknowledged.all)
    }

    /// Restarts the server without the shim and checks every acknowledged record and the database's integrity.
    private func verify(_ written: Written, in directory: URL, crash: String) async throws {
        let data = directory.appending(path: "data")
        let server = try await ServerProcess(
            arguments: ["--data-directory", data.path, "--registration-token", Self.token]
        )
        defer { server.stop() }
        let http = HTTP(base: server.baseURL)
        guard let client = written.client else {
            #expect(written.records.isEmpty)
            return
        }
        let token = try await http.token(client)
        for (id, record) in written.records {
            let (status, body) = try await http.send(
                "GET",
                "/v1/storage/records/\(id)",
                token: token,
                json: nil as String?
            )
            #expect(status == 200, "\(crash): acknowledged record \(id) is missing")
            if status == 200 { #expect(try JSONDecoder().decode(RecordResponse.self, from: body).data == record) }
        }
        let database = try await SQLiteConnection.open(
            storage: .file(path: data.appending(path: "strongroom.sqlite").path)
        )
        let rows = try await database.query("PRAGMA integrity_check")
        try await database.close()
        let answer = rows.map { "\($0.column("integrity_check") ?? .null)" }
        #expect(answer == ["ok"] || answer == ["\"ok\""], "\(crash): \(answer)")
    }

    private struct Written {
        var client: HTTP.Client?
        var records: [String: [String: String]]
    }
}
