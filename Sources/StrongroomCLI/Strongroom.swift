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
}
