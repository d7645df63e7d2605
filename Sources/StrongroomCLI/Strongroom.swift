// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The `strongroom` command-line tool.
@main
struct Strongroom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom",
        abstract: "End-to-end encrypted storage and sharing, E3DB-compatible.",
        version: "0.1.0",
        subcommands: [
            RegisterCommand.self, WhoAmICommand.self, ProfilesCommand.self,
            WriteCommand.self, ReadCommand.self, UpdateCommand.self, DeleteCommand.self, QueryCommand.self,
            ShareCommand.self, RevokeCommand.self, SharingCommand.self, AuthorizerCommand.self,
            FileCommand.self,
            EncryptCommand.self, DecryptCommand.self, WriterKeyCommand.self, SignCommand.self, VerifyCommand.self,
            KeychainCommand.self, KeysCommand.self, PKICommand.self, DatastoreCommand.self, DemoCommand.self,
            IntegrityCommand.self, ProtectCommand.self, UnprotectCommand.self, DoctorCommand.self,
        ]
    )

    /// ArgumentParser's entry point, inside ``Interrupts``: Ctrl-C cancels the command, removes what it staged,
    /// prints `cancelled` and exits 130.
    static func main() async {
        await Interrupts.run {
            do {
                var command = try parseAsRoot()
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
            } catch {
                if Interrupts.wasInterrupted { Interrupts.finish() }
                Strongroom.exit(withError: error)
            }
        }
    }
}
