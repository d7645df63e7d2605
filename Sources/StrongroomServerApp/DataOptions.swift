// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomPKI
import StrongroomServer
import StrongroomServerPostgres
import StrongroomWire

/// Options shared by every subcommand.
struct DataOptions: ParsableArguments {
    @Option(help: "The data directory (SQLite database and token key). Env: STRONGROOM_DATA_DIR.")
    var dataDirectory = ProcessInfo.processInfo.environment["STRONGROOM_DATA_DIR"] ?? "strongroom-data"

    @Option(
        help:
            "Use PostgreSQL instead of SQLite: postgres://user:pw@host:port/db?sslmode=…. Env: STRONGROOM_DATABASE_URL."
    )
    var databaseURL: String?

    @Option(
        help:
            "The certificate authority's files (default <data>/ca); every instance of a deployment names the same. Env: STRONGROOM_CA_DIRECTORY."
    )
    var caDirectory: String?

    /// The CA folder from the option or the environment, or nil for `<data>/ca`.
    var resolvedCADirectory: String? {
        caDirectory ?? ProcessInfo.processInfo.environment["STRONGROOM_CA_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the CA's files are.
    var caFolder: String { resolvedCADirectory ?? CertificateAuthority.directory(in: dataDirectory) }

    /// The PostgreSQL URL from the option or the environment, or nil for the embedded SQLite database.
    var resolvedDatabaseURL: String? { databaseURL ?? ProcessInfo.processInfo.environment["STRONGROOM_DATABASE_URL"] }

    /// Runs `body` with the store (migrated), then closes it. Only a command that sets a deployment up
    /// (`token create`) passes `creating`: every other one on an embedded database that does not exist fails with
    /// ``MissingData`` instead of making an empty `strongroom-data` wherever it was run.
    func withStore<R>(creating: Bool = false, _ body: (SQLServerStore) async throws -> R) async throws -> R {
        let logger = Logger(label: "strongroom-server")
        if let url = resolvedDatabaseURL {
            return try await PostgresServerDatabase.open(url: url, logger: logger).withStore(body)
        }
        guard creating || FileManager.default.fileExists(atPath: EmbeddedDatabase.databasePath(in: dataDirectory))
        else {
            throw MissingData(directory: dataDirectory)
        }
        return try await EmbeddedDatabase.open(dataDirectory: dataDirectory, logger: logger).withStore(body)
    }
}

/// A command that ran and could not do what it was asked (no such token, no such certificate): one line, no usage
/// text (ArgumentParser's `ValidationError` is for arguments that do not parse).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    /// The process's exit status: 1, or ``ServerExitCode/exists`` when what it would create exists already.
    var exitCode: Int32
    init(_ description: String, exitCode: Int32 = 1) { (self.description, self.exitCode) = (description, exitCode) }
}

/// A read or change of a deployment whose data directory holds no database: nothing was created.
struct MissingData: Error, CustomStringConvertible {
    var directory: String
    var description: String {
        "there is no Strongroom database in \(directory): give the server's --data-directory (or "
            + "STRONGROOM_DATA_DIR, or --database-url for PostgreSQL); nothing was created"
    }
}
