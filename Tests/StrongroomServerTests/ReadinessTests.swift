// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `GET /ready` follows the database; `GET /health` only says that the process runs.
@Suite(.enabled(if: TestEngine.available.contains(.postgres), "needs PostgreSQL"))
struct ReadinessTests {
    @Test("/ready fails while the database is stopped and recovers once it is back; /health answers throughout")
    func readyFollowsTheDatabase() async throws {
        try await withTemporaryDirectory { directory in
            // A cluster of its own: stopping the shared one would fail every other test.
            try await PostgresCluster.with(in: directory, port: 55329) { url, cluster in
                try await check(url: url, directory: directory, cluster: cluster)
            }
        }
    }

    private func check(url: String, directory: URL, cluster: PostgresCluster) async throws {
        let server = try await ServerProcess(arguments: [
            "--data-directory", directory.appending(path: "data").path, "--database-url", url,
        ])
        defer { server.stop() }
        let http = HTTP(base: server.baseURL)
        let none: String? = nil
        #expect(try await http.send("GET", "/ready", json: none).0 == 200)

        _ = try await cluster.run("halt")
        #expect(try await poll(http, until: 503), "/ready kept answering 200 with the database stopped")
        #expect(try await http.send("GET", "/health", json: none).0 == 200)

        _ = try await cluster.run("resume")
        #expect(try await poll(http, until: 200), "/ready did not recover with the database back")
    }

    /// Asks `/ready` until it answers `status` (at most 30 s); whether it did.
    private func poll(_ http: HTTP, until status: Int) async throws -> Bool {
        let none: String? = nil
        for _ in 0..<150 {
            if try await http.send("GET", "/ready", json: none).0 == status { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}
