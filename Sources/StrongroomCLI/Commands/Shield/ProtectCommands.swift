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
        static let configuration = CommandConfiguration(
            abstract: "Protect a file under a keychain key, or with --to as an age file to recipients."
        )
        @OptionGroup var options: ProtectorOptions
        @Option(
            name: .customLong("to"),
            help: ArgumentHelp(
                "Encrypt to this age recipient instead (age1pq1… post-quantum, or age1…; repeat for several): "
                    + "an age file that age 1.3 reads too. `strongroom keys age [CLIENT]` prints a client's."
            )
        )
        var recipients: [String] = []
        @Argument(help: "The plaintext file.") var input: String
        @Argument(help: "Where to write the protected file. Must not exist.") var output: String

        func run() async throws {
            guard !recipients.isEmpty else {
                try await options.protector(creating: true).protect(
                    contentsOf: URL(fileURLWithPath: input),
                    to: URL(fileURLWithPath: output)
                )
                print("protected \(input)")
                return
            }
            guard options.key == nil, options.keyFile == nil else {
                throw CLIError(
                    description: "error: --to writes an age file to its recipients; leave out --key and --key-file",
                    exitCode: .validationFailure
                )
            }
            var parsed: [AgeRecipient] = []
            for text in recipients {
                do {
                    parsed.append(try AgeRecipient(text))
                } catch {
                    throw CLIError(
                        description: "error: \(text.prefix(24))… is not an age recipient",
                        exitCode: .init(5)
                    )
                }
            }
            guard parsed.allSatisfy(\.isPostQuantum) || !parsed.contains(where: \.isPostQuantum) else {
                throw CLIError(
                    description: "error: post-quantum (age1pq1…) and X25519 (age1…) recipients cannot be mixed: the "
                        + "X25519 one would open the file without the post-quantum part",
                    exitCode: .validationFailure
                )
            }
            try await AgeFile.encrypt(
                contentsOf: URL(fileURLWithPath: input),
                to: URL(fileURLWithPath: output),
                recipients: parsed
            )
            let kind = parsed.allSatisfy(\.isPostQuantum) ? "post-quantum " : ""
            print(
                "protected \(input) as an age file to \(parsed.count) \(kind)recipient\(parsed.count == 1 ? "" : "s")"
            )
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
    @Option(
        help: ArgumentHelp(
            "An age identity file (AGE-SECRET-KEY-… lines; `strongroom keys age --identity-file` writes one) to "
                + "open an age file with; repeat for several."
        )
    )
    var identity: [String] = []
    @Argument(help: "The protected file.") var input: String
    @Argument(help: "Where to write the plaintext. Must not exist.") var output: String

    func run() async throws {
        let (source, destination) = (URL(fileURLWithPath: input), URL(fileURLWithPath: output))
        guard identity.isEmpty else {
            let size = try await AgeFile.decrypt(
                contentsOf: source,
                to: destination,
                identities: try AgeIdentityFile.read(identity)
            )
            print("unprotected \(size) bytes")
            return
        }
        if let handle = FileHandle(forReadingAtPath: input) {
            let start = (try? handle.read(upToCount: 32)) ?? Data()
            try? handle.close()
            if AgeFile.isAgeFile(start) {
                throw CLIError(
                    description: "error: \(input) is an age file: give --identity FILE (an age identity file)",
                    exitCode: .validationFailure
                )
            }
        }
        let size = try await options.protector(creating: false).unprotect(contentsOf: source, to: destination)
        print("unprotected \(size) bytes")
    }
}
