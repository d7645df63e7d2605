// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Logging
import StrongroomCore
import StrongroomServer
import StrongroomServerPostgres

/// `strongroom-server keylog …`: the key log's identity, for clients to pin.
struct KeyLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keylog",
        abstract: "The key log's verifier key, for clients to pin; how fast this machine appends to a log.",
        subcommands: [Key.self, Speed.self]
    )

    /// `strongroom-server keylog speed`: appends per second on a scratch database (like `openssl speed`).
    struct Speed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
                        "--database-url holds \(clients) clients and \(leaves) key log leaves: keylog speed appends "
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

    /// `strongroom-server keylog key`: prints the verifier key the log signs checkpoints with.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the key log's verifier key (derived from the token key; the same on every instance)."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "The token key file, as `serve --token-key-file` takes it. Env: STRONGROOM_TOKEN_KEY.")
        var tokenKeyFile: String?

        func run() async throws {
            let tokenKey: SecureBytes
            if let tokenKeyFile {
                tokenKey = try parseTokenKey(
                    try readSecretFile(tokenKeyFile, option: "--token-key-file"),
                    source: "--token-key-file"
                )
            } else if let text = ProcessInfo.processInfo.environment["STRONGROOM_TOKEN_KEY"], !text.isEmpty {
                tokenKey = try parseTokenKey(text, source: "STRONGROOM_TOKEN_KEY")
            } else {
                // Reading never creates: without a token key there is no log key yet.
                let path = data.dataDirectory + "/token.key"
                guard FileManager.default.fileExists(atPath: path) else {
                    let database = EmbeddedDatabase.databasePath(in: data.dataDirectory)
                    guard data.resolvedDatabaseURL != nil || FileManager.default.fileExists(atPath: database) else {
                        throw MissingData(directory: data.dataDirectory)
                    }
                    throw CommandFailure(
                        "there is no token key in \(data.dataDirectory): the server was given its own, so give the "
                            + "same one here (--token-key-file or STRONGROOM_TOKEN_KEY); nothing was created"
                    )
                }
                tokenKey = try loadTokenKey(dataDirectory: data.dataDirectory)
            }
            print(try keyLogVerifierKey(tokenKey: tokenKey))
        }
    }
}
