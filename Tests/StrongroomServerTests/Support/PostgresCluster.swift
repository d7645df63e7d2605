// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
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
}
