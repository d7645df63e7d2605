// Strongroom — SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomPKI
import StrongroomServer
import StrongroomServerPostgres
import StrongroomWire

/// `strongroom-server`: the E3DB-compatible service.
@main
struct StrongroomServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom-server",
        abstract: "The Strongroom E3DB-compatible server (SQLite by default).",
        discussion: """
            Exit status: 0 done; 1 failed (the message says why); 9 what the command would create exists already \
            (a CA, the TLS certificate, a backup's folder, a restore's data directory); 64 the arguments do not parse.
            """,
        version: "0.1.0",
        subcommands: [
            Serve.self, TokenCommand.self, CACommand.self, IntegrityCommand.self, BlobsCommand.self, BackupCommand.self,
            Restore.self, TLSCommand.self, KeyLogCommand.self, WitnessCommand.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// ArgumentParser's entry point, after refusing a mistyped command: under the default `serve`,
    /// `strongroom-server tokens list` would otherwise read as serve's arguments.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let children: (any ParsableCommand.Type) -> [(names: [String], command: any ParsableCommand.Type)] = {
            $0.configuration.subcommands.map { ([$0._commandName] + $0.configuration.aliases, $0) }
        }
        if let message = Suggestion.unknownCommandMessage(
            in: arguments,
            rootName: _commandName,
            root: Self.self,
            children: children,
            // A default subcommand with positional arguments would take an unknown word (serve takes none).
            takesArguments: { $0.configuration.defaultSubcommand?.helpMessage().contains("ARGUMENTS:") == true }
        ) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Self.exit(withError: ExitCode.validationFailure)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as any StrongroomError {
            // In the operator's words: the message, not the Swift type and case (`PKIError.invalidParameters: …`).
            FileHandle.standardError.write(Data(("Error: " + error.message + "\n").utf8))
            let exists = (error as? PKIError)?.code == .exists || (error as? ServerError)?.code == .exists
            Self.exit(withError: ExitCode(exists ? ServerExitCode.exists : 1))
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data(("Error: " + failure.description + "\n").utf8))
            Self.exit(withError: ExitCode(failure.exitCode))
        } catch {
            Self.exit(withError: error)
        }
    }
}

/// `strongroom-server`'s exit statuses beyond 0, 1 and ArgumentParser's 64, the same numbers as the client CLI's.
enum ServerExitCode {
    /// What the command would create exists already.
    static let exists: Int32 = 9
}

extension ClientCertificateMode: ExpressibleByArgument {}
extension BlobStorage: ExpressibleByArgument {}
