// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore

/// The `strongroom` command-line tool.
@main
struct Strongroom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom",
        abstract: "End-to-end encrypted storage and sharing, E3DB-compatible.",
        discussion: """
            Exit codes: 0 done; 1 other failure; 3 wrong key, passphrase or password, or altered data; 4 malformed \
            input; 5 invalid key or configuration; 6 a file cannot be read or written; 7 not found; 8 not allowed \
            (unauthorised, forbidden, locked, integrity refused); 9 conflict or already exists; 10 the server cannot \
            be reached or is not trusted; 11 the server failed; 20/21 integrity suspicious/compromised; 64 bad \
            arguments; 130 cancelled (Ctrl-C). Errors are one line; --verbose (or STRONGROOM_VERBOSE=1) adds where \
            it was made and the library errors under it.

            Environment: STRONGROOM_PROFILE (the profile to use), STRONGROOM_HOME (where profiles live, default \
            ~/.strongroom), STRONGROOM_KEYCHAIN (the keychain file), STRONGROOM_KEYCHAIN_PASSPHRASE and \
            STRONGROOM_KEYCHAIN_PASSPHRASE_FILE (unlock it), STRONGROOM_AGENT_SOCKET (the agent's socket; empty: no \
            agent), STRONGROOM_DATASTORE_PASSWORD and \
            STRONGROOM_DATASTORE_NEW_PASSWORD (datastore passwords), STRONGROOM_P12_PASSPHRASE (PKCS#12 files), \
            STRONGROOM_REGISTRATION_TOKEN (register), HOME and XDG_DATA_HOME.
            """,
        version: "0.1.0",
        subcommands: [
            RegisterCommand.self, WhoAmICommand.self, ProfilesCommand.self, ProfileCommand.self,
            WriteCommand.self, ReadCommand.self, UpdateCommand.self, DeleteCommand.self, QueryCommand.self,
            ShareCommand.self, RevokeCommand.self, SharingCommand.self, AuthorizerCommand.self,
            FileCommand.self,
            EncryptCommand.self, DecryptCommand.self, WriterKeyCommand.self, SignCommand.self, VerifyCommand.self,
            KeychainCommand.self, AgentCommand.self, KeysCommand.self, KeyLogCommand.self, PKICommand.self,
            DatastoreCommand.self,
            DemoCommand.self,
            IntegrityCommand.self, ProtectCommand.self, UnprotectCommand.self, DoctorCommand.self,
        ]
    )

    /// ArgumentParser's entry point, inside ``Interrupts``: Ctrl-C cancels the command, removes what it staged,
    /// prints `cancelled` and exits 130. A command's failure is worded and given its exit code here, once for every
    /// command (``report(_:)``); ArgumentParser's own errors (usage, `--help`, an exit code a command chose) pass
    /// through to it.
    static func main() async {
        await Interrupts.run {
            let command: any ParsableCommand
            do {
                let arguments = Verbosity.arguments(Array(CommandLine.arguments.dropFirst()))
                try rejectUnknownCommand(arguments)
                command = try parseAsRoot(arguments)
            } catch {
                Strongroom.exit(withError: error)  // usage, --help, --version: ArgumentParser's own
            }
            do {
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    var synchronous = command
                    try synchronous.run()
                }
            } catch let error where isArgumentParsers(error) {
                if Interrupts.wasInterrupted { Interrupts.finish() }
                Strongroom.exit(withError: error)
            } catch {
                let status = report(error)
                if Interrupts.wasInterrupted { Interrupts.finish() }
                Strongroom.exit(withError: status)
            }
        }
    }
}

/// Whether `error` is ArgumentParser's own (an exit code, a clean exit, a validation failure, or its internal errors,
/// such as `help`'s request for help): those pass to it untouched; every other failure is worded by ``report(_:)``.
func isArgumentParsers(_ error: any Error) -> Bool {
    error is CleanExit || error is ExitCode || error is ValidationError
        || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
}

extension ParsableCommand {
    /// Whether `command`'s default subcommand takes positional arguments (its help has an ARGUMENTS section): then a
    /// word that names no subcommand is one of them, not a typo.
    static func defaultTakesArguments(_ command: any ParsableCommand.Type) -> Bool {
        command.configuration.defaultSubcommand?.helpMessage().contains("ARGUMENTS:") == true
    }

    /// A mistyped command name is refused with the closest known one, instead of ArgumentParser's "unexpected
    /// argument" (or, under a default subcommand, that command's usage): exit 64.
    static func rejectUnknownCommand(_ arguments: [String]) throws {
        let children: (any ParsableCommand.Type) -> [(names: [String], command: any ParsableCommand.Type)] = {
            $0.configuration.subcommands.map { ([$0._commandName] + $0.configuration.aliases, $0) }
        }
        guard
            let message = Suggestion.unknownCommandMessage(
                in: arguments,
                rootName: _commandName,
                root: Self.self,
                children: children,
                takesArguments: defaultTakesArguments
            )
        else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
        throw ExitCode.validationFailure
    }
}
