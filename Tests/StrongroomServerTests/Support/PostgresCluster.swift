// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomServerTesting
import StrongroomTesting

/// A throw-away PostgreSQL cluster of `Scripts/postgres.sh`, recorded in `state`, for a test that stops and starts
/// its database (stopping the shared one would fail every other test). `port` is the first one tried.
struct PostgresCluster {
    let state: String
    let port: Int

    /// Runs `Scripts/postgres.sh command` (`start`, `stop`, `halt`, `resume`); its last line of output.
    func run(_ command: String) async throws -> String {
        let outcome = try await ExternalProcess.run(
            URL(fileURLWithPath: PythonSDK.path("Scripts/postgres.sh")),
            arguments: [command],
            environment: ["STRONGROOM_PG_STATE": state, "STRONGROOM_PG_PORT": "\(port)"]
        )
        guard outcome.status == 0 else { throw TestFailure("postgres.sh \(command): \(outcome.output)") }
        return outcome.output.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Starts a cluster of its own in `directory` (first port tried: `port`), runs `body` with its URL, and stops
    /// it whatever happens (a failing stop after a failing body is not reported: the body's error matters more).
    static func with(
        in directory: URL,
        port: Int,
        _ body: (String, PostgresCluster) async throws -> Void
    ) async throws {
        let cluster = PostgresCluster(state: directory.appending(path: "postgres.state").path, port: port)
        let url = try await cluster.run("start")
        do {
            try await body(url, cluster)
        } catch {
            _ = try? await cluster.run("stop")
            throw error
        }
        _ = try await cluster.run("stop")
    }
}
