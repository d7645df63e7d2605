// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomWitness

/// `strongroom-server witness …`: a key log witness (C2SP tlog-witness) that cosigns a log's checkpoints only when
/// they extend the last one it cosigned.
struct WitnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "Run a key log witness, or print its key.",
        subcommands: [Serve.self, Key.self]
    )

    /// Where a witness keeps its key and state, and its name.
    struct Options: ParsableArguments {
        @Option(help: "The witness's folder (its key and the checkpoints it cosigned). Env: STRONGROOM_WITNESS_DIR.")
        var directory = ProcessInfo.processInfo.environment["STRONGROOM_WITNESS_DIR"] ?? "strongroom-witness"
        @Option(help: "The witness's name in its cosignatures (default strongroom-witness/<key prefix>).")
        var name: String?
    }

    /// `strongroom-server witness serve --log-key KEY`: serves `POST /add-checkpoint`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve POST /add-checkpoint for the logs whose keys are given (creates the witness key once)."
        )
        @OptionGroup var options: Options
        @Option(help: "A log's key, from `strongroom-server keylog key`; repeatable.") var logKey: [String] = []
        @Option(help: "The address to listen on.") var host = "127.0.0.1"
        @Option(help: "The port (0: any free port).") var port = 8081
        @Option(help: "Write the bound port to this file once listening.") var portFile: String?
        @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel = "info"

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port is 0 to 65535 (0 picks a free one)") }
        }

        func run() async throws {
            guard !logKey.isEmpty else { throw ValidationError("give at least one --log-key") }
            let keys = try logKey.map { text in
                do {
                    return try NoteVerifierKey(text)
                } catch {
                    throw ValidationError("--log-key \(text) is not a key log verifier key (name+keyid+base64)")
                }
            }
            var logger = Logger(label: "strongroom-witness")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            let (directory, name) = (options.directory, options.name)
            // The witness key is created inside, after the port is checked.
            try await ServeFailure.listening(host: host, port: port) {
                // Its key and state are files: read off the cooperative pool.
                let witness = try await BlockingExecutor.shared.run { _ in
                    try KeyLogWitness(directory: directory, name: name, logKeys: keys, clock: SystemWallClock())
                }
                print(witness.cosigner.key.description)
                let app = buildWitnessApplication(
                    witness: witness,
                    host: host,
                    port: port,
                    portFile: portFile,
                    logger: logger
                )
                try await app.runService()
            }
        }
    }

    /// `strongroom-server witness key`: prints the witness's key, for logs and clients to configure.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the witness's key (never creates one).")
        @OptionGroup var options: Options

        func run() async throws {
            let (directory, name) = (options.directory, options.name)
            let existing = try await BlockingExecutor.shared.run { _ in
                try KeyLogWitness.existingKey(in: directory, name: name)
            }
            guard let key = existing else {
                throw CommandFailure(
                    "there is no witness key in \(options.directory): start `witness serve` once; nothing was created"
                )
            }
            print(key.description)
        }
    }
}
