// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomServer
import StrongroomServerPostgres

/// `strongroom-server`: the E3DB-compatible service.
@main
struct StrongroomServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom-server",
        abstract: "The Strongroom E3DB-compatible server (SQLite by default).",
        subcommands: [Serve.self, TokenCommand.self],
        defaultSubcommand: Serve.self
    )
}

/// Options shared by every subcommand.
struct DataOptions: ParsableArguments {
    @Option(help: "The data directory (SQLite database and token key). Env: STRONGROOM_DATA_DIR.")
    var dataDirectory = ProcessInfo.processInfo.environment["STRONGROOM_DATA_DIR"] ?? "strongroom-data"

    @Option(
        help:
            "Use PostgreSQL instead of SQLite: postgres://user:pw@host:port/db?sslmode=…. Env: STRONGROOM_DATABASE_URL."
    )
    var databaseURL: String?

    /// The PostgreSQL URL from the option or the environment, or nil for the embedded SQLite database.
    var resolvedDatabaseURL: String? { databaseURL ?? ProcessInfo.processInfo.environment["STRONGROOM_DATABASE_URL"] }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server until SIGINT or SIGTERM.")

    @OptionGroup var data: DataOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks one).") var port = 8000
    @Option(help: "Create this registration token at start-up if missing. Env: STRONGROOM_REGISTRATION_TOKEN.")
    var registrationToken: String?
    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel = "info"
    @Option(help: "The URL clients reach this server at, for presigned file URLs (default: each request's Host).")
    var publicURL: String?
    @Option(help: "Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-private-key.")
    var tlsCertificateChain: String?
    @Option(help: "The PEM private key of --tls-certificate-chain.") var tlsPrivateKey: String?

    func validate() throws {
        if (tlsCertificateChain == nil) != (tlsPrivateKey == nil) {
            throw ValidationError("--tls-certificate-chain and --tls-private-key go together")
        }
    }

    func run() async throws {
        var logger = Logger(label: "strongroom-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let configuration = ServerConfiguration(
            dataDirectory: data.dataDirectory,
            host: host,
            port: port,
            registrationToken: registrationToken
                ?? ProcessInfo.processInfo.environment["STRONGROOM_REGISTRATION_TOKEN"],
            publicURL: publicURL,
            tls: tlsCertificateChain.flatMap { chain in
                tlsPrivateKey.map { ServerTLS(certificateChainPath: chain, privateKeyPath: $0) }
            }
        )
        if let url = data.resolvedDatabaseURL {
            let app = try await buildPostgresApplication(configuration: configuration, databaseURL: url, logger: logger)
            try await app.runService()
        } else {
            let app = try await buildEmbeddedApplication(configuration: configuration, logger: logger)
            try await app.runService()
        }
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage registration tokens.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    static func withStore<R>(_ data: DataOptions, _ body: (any ServerStore) async throws -> R) async throws -> R {
        let logger = Logger(label: "token")
        if let url = data.resolvedDatabaseURL {
            return try await PostgresServerDatabase.open(url: url, logger: logger).withStore(body)
        }
        return try await EmbeddedDatabase.open(dataDirectory: data.dataDirectory, logger: logger).withStore(body)
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a registration token and print it.")
        @OptionGroup var data: DataOptions
        @Option(help: "A name to recognise it by.") var name = "token"
        @Option(help: "How many registrations it allows (default: unlimited).") var maximumUses: Int?

        func run() async throws {
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try await TokenCommand.withStore(data) { store in
                try await store.createRegistrationToken(
                    StoredRegistrationToken(token: token, name: name, uses: 0, maximumUses: maximumUses, enabled: true)
                )
            }
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registration tokens.")
        @OptionGroup var data: DataOptions

        func run() async throws {
            let tokens = try await TokenCommand.withStore(data) { try await $0.registrationTokens() }
            for token in tokens {
                let cap = token.maximumUses.map(String.init) ?? "∞"
                print(
                    "\(token.token)  \(token.name)  uses \(token.uses)/\(cap)  \(token.enabled ? "enabled" : "revoked")"
                )
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a registration token.")
        @OptionGroup var data: DataOptions
        @Argument var token: String

        func run() async throws {
            guard try await TokenCommand.withStore(data, { try await $0.revokeRegistrationToken(token) }) else {
                throw ValidationError("no such token")
            }
            print("revoked")
        }
    }
}
