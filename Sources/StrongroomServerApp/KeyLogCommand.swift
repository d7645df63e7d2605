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
        abstract: "The key log's verifier key, for clients to pin.",
        subcommands: [Key.self]
    )

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
