// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Logging
import StrongroomCore
import StrongroomServer
import StrongroomServerPostgres

/// `StrongroomKeyLogSpeed`: key log appends per second on a scratch database (like `openssl speed`), beside bare
/// inserts of the same rows; `Scripts/bench-keylog.sh` runs it from a release build.
@main
struct KeyLogSpeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "StrongroomKeyLogSpeed",
        abstract: "Measure key log appends per second (batched, a checkpoint a second) on a scratch database."
    )
    @Option(help: "How many entries to append.") var events = 100_000
    @Option(help: "Entries per transaction.") var batch = 1_000
    @Option(
        help: "A scratch PostgreSQL database (its tables are created and left); default: a temporary SQLite one."
    )
    var databaseURL: String?

    func run() async throws {
        guard (1...10_000_000).contains(events), (1...100_000).contains(batch) else {
            throw ValidationError("--events is 1 to 10,000,000 and --batch 1 to 100,000")
        }
        let logger = Logger(label: "strongroom-keylog-speed")
        let measure: @Sendable (SQLServerStore) async throws -> KeyLogSpeed = { store in
            // The key log is append-only: made-up leaves in a deployment's database would stay there for good.
            let (clients, leaves) = try await store.deploymentContents()
            guard clients == 0, leaves == 0 else {
                throw ServerError(
                    .configuration,
                    "--database-url holds \(clients) clients and \(leaves) key log leaves: the probe appends "
                        + "made-up leaves that can never be removed, so it runs only on an empty scratch database"
                )
            }
            return try await KeyLogSpeed.measure(store: store, events: events, batch: batch)
        }
        let speed: KeyLogSpeed
        let engine: String
        if let databaseURL {
            engine = "PostgreSQL"
            speed = try await PostgresServerDatabase.open(url: databaseURL, logger: logger).withStore(measure)
        } else {
            engine = "SQLite"
            let directory = FileManager.default.temporaryDirectory.appending(path: "keylog-speed-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }  // scratch: best effort
            speed = try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore(
                measure
            )
        }
        print(
            String(
                format:
                    "%@: %.0f appends/s in batches of %d (%d checkpoints signed); bare inserts %.0f rows/s; ratio %.2f",
                engine,
                speed.appendsPerSecond,
                batch,
                speed.checkpoints,
                speed.floorPerSecond,
                speed.appendsPerSecond / speed.floorPerSecond
            )
        )
    }
}
