// Strongroom — SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomServer
import StrongroomServerPostgres
import StrongroomWire

/// `strongroom-server`: the E3DB-compatible service.
@main
struct StrongroomServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom-server",
        abstract: "The Strongroom E3DB-compatible server (SQLite by default).",
        version: "0.1.0",
        subcommands: [
            Serve.self, TokenCommand.self, CACommand.self, IntegrityCommand.self, BlobsCommand.self, BackupCommand.self,
            Restore.self, TLSCommand.self,
        ],
        defaultSubcommand: Serve.self
    )
}

extension ClientCertificateMode: ExpressibleByArgument {}
extension BlobStorage: ExpressibleByArgument {}
