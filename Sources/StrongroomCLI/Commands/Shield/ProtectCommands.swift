// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield

/// Which key protects files: a named key in the keychain (created there on first use), or a key file.
struct ProtectorOptions: ParsableArguments {
    @OptionGroup var keychain: KeychainOptions
    @Option(help: "The protector key's name in the keychain (created there when missing, never leaving it).")
    var key: String?
    @Option(help: "A key file instead (strongroom keys access-key), for build machines.") var keyFile: String?

    func protector(creating: Bool) async throws -> FileProtector {
        switch (key, keyFile) {
        case (let name?, nil):
            return try FileProtector(keychain: try await keychain.open(), key: name, createsKey: creating)
        case (nil, let file?):
            return try FileProtector(keyFile: URL(fileURLWithPath: file))
        default:
            throw CLIError(description: "error: give one of --key or --key-file", exitCode: .validationFailure)
        }
    }
}

/// `strongroom protect`: encrypt a file at rest under a keychain key.
struct ProtectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "protect",
        abstract: "Encrypt a file at rest under a key kept in the keychain (streamed; output 0600, new only).",
        subcommands: [File.self, ImportKey.self],
        defaultSubcommand: File.self
    )

    struct File: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Protect a file.")
        @OptionGroup var options: ProtectorOptions
        @Argument(help: "The plaintext file.") var input: String
        @Argument(help: "Where to write the protected file. Must not exist.") var output: String

        func run() async throws {
            try await options.protector(creating: true).protect(
                contentsOf: URL(fileURLWithPath: input),
                to: URL(fileURLWithPath: output)
            )
            print("protected \(input)")
        }
    }

    struct ImportKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-key",
            abstract: "Store a build-time key file in the keychain as a protector key (then delete the file)."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "The key's name in the keychain.") var key: String
        @Argument(help: "The key file.") var keyFile: String

        func run() async throws {
            try FileProtector.importKey(
                from: URL(fileURLWithPath: keyFile),
                into: try await keychain.open(),
                name: key
            )
            print("imported \(key)")
        }
    }
}

/// `strongroom unprotect`: decrypt a protected file; nothing is written unless it all authenticates.
struct UnprotectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unprotect",
        abstract: "Decrypt a protected file (nothing is written unless all of it authenticates)."
    )
    @OptionGroup var options: ProtectorOptions
    @Argument(help: "The protected file.") var input: String
    @Argument(help: "Where to write the plaintext. Must not exist.") var output: String

    func run() async throws {
        let size = try await options.protector(creating: false).unprotect(
            contentsOf: URL(fileURLWithPath: input),
            to: URL(fileURLWithPath: output)
        )
        print("unprotected \(size) bytes")
    }
}
