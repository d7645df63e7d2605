// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Logging
import StrongroomServer

/// `strongroom-server backup`: a consistent copy of an embedded deployment, taken while it serves.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database (a consistent snapshot, while the server runs), the token key, the CA "
            + "and the file bodies into a new folder, which is itself a data directory.",
        discussion: "On PostgreSQL back up with pg_dump (docs/Deployment.md). Restore with `strongroom-server restore`."
    )
    @OptionGroup var data: DataOptions
    @Option(help: "The new folder to write the backup to.") var output: String

    func run() async throws {
        guard data.resolvedDatabaseURL == nil else {
            throw CommandFailure("on PostgreSQL, back up with pg_dump (see docs/Deployment.md): nothing was written")
        }
        guard FileManager.default.fileExists(atPath: EmbeddedDatabase.databasePath(in: data.dataDirectory)) else {
            throw MissingData(directory: data.dataDirectory)
        }
        let summary = try await EmbeddedBackup.create(
            dataDirectory: data.dataDirectory,
            caDirectory: data.resolvedCADirectory,
            output: output,
            logger: Logger(label: "strongroom-server")
        )
        print("backed up to \(output): \(summary)")
    }
}

/// `strongroom-server restore`: a backup copied into a new data directory.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a backup into a data directory that holds no database yet; then serve it."
    )
    @Option(help: "The backup folder (from `strongroom-server backup`).") var input: String
    @Option(help: "The data directory to restore into (new or empty). Env: STRONGROOM_DATA_DIR.")
    var dataDirectory = ProcessInfo.processInfo.environment["STRONGROOM_DATA_DIR"] ?? "strongroom-data"

    func run() async throws {
        let summary = try await EmbeddedBackup.restore(from: input, to: dataDirectory)
        print("restored \(input) into \(dataDirectory): \(summary)")
    }
}
