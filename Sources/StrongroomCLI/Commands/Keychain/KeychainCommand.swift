// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCrypto
import StrongroomKeychain

/// `strongroom keychain …`: generic passwords in the keychain, and its passphrase.
struct KeychainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain",
        abstract: "Store, read, list and remove secrets in the keychain; create it; change its passphrase.",
        subcommands: [Create.self, Store.self, Get.self, List.self, Remove.self, ChangePassphrase.self]
    )

    /// The item options `store`, `get` and `remove` share.
    struct ItemOptions: ParsableArguments {
        @Option(help: "The account the secret is for.") var account: String
        @Option(help: "The service (for example a host name).") var service: String?

        var query: ItemQuery<GenericPassword> { .credential(for: account, service: service) }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an encrypted keychain file (mode 0600).")
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "Argon2id cost: interactive, moderate (default) or sensitive.") var kdf = "moderate"

        func run() async throws {
            // Before any passphrase is asked for: a keychain is never created over another.
            if FileManager.default.fileExists(atPath: keychain.fileURL.path) {
                throw CLIError(
                    description: "error: a keychain exists at \(keychain.fileURL.path) already (its passphrase "
                        + "opens it; --keychain-file chooses another)",
                    exitCode: ExitCode(9)
                )
            }
            try FileManager.default.createDirectory(
                at: keychain.fileURL.deletingLastPathComponent(),
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            _ = try EncryptedFileBackend.create(
                at: keychain.fileURL,
                passphrase: try keychain.passphrase(),
                parameters: try KeychainCommand.parameters(kdf)
            )
            print("created \(keychain.fileURL.path)")
        }
    }

    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a secret read from standard input (never from the command line)."
        )
        @OptionGroup var keychain: KeychainOptions
        @OptionGroup var item: ItemOptions
        @Option(help: "A label to recognise it by.") var label: String?
        @Option(help: "whenUnlocked (default) or afterFirstUnlock.") var accessibility = "whenUnlocked"
        @Flag(help: "Require the passphrase again on every use of this item (userPresence).") var userPresence = false
        @Flag(help: "Replace an existing item.") var update = false

        func run() async throws {
            guard let policy = AccessPolicy.Accessibility(rawValue: accessibility) else {
                throw CLIError(
                    description: "error: unknown accessibility \(accessibility)",
                    exitCode: .validationFailure
                )
            }
            let opened = try await keychain.open()
            // The rest of standard input (after the passphrase line, when that came from stdin too).
            let value = Self.standardInput()
            guard !value.isEmpty else {
                throw CLIError(description: "error: no secret on standard input", exitCode: .validationFailure)
            }
            var query = item.query
            query.label = label
            if userPresence { query.authenticationContext = .passphrase(try keychain.presencePassphrase()) }
            if update {
                try opened.update(value, query: query)
            } else {
                try opened.store(
                    value,
                    query: query,
                    accessPolicy: AccessPolicy(policy, options: userPresence ? .userPresence : [])
                )
            }
            print("stored")
        }

        /// The rest of standard input, its lines joined.
        private static func standardInput() -> String {
            var lines: [String] = []
            while let line = readLine(strippingNewline: true) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a secret (exit 7 when there is none).")
        @OptionGroup var keychain: KeychainOptions
        @OptionGroup var item: ItemOptions

        func run() async throws {
            let opened = try await keychain.open()
            guard let value = try retrieve(from: opened) else {
                throw CLIError(description: "error: no such item", exitCode: ExitCode(7))
            }
            print(value)
        }

        /// The item's secret; a userPresence item's with the passphrase asked again (prompted, or from
        /// `--passphrase-file`).
        private func retrieve(from opened: Keychain) throws -> String? {
            do {
                return try opened.retrieve(item.query, as: String.self)
            } catch {
                guard error.code == .authenticationRequired else { throw error }
                var query = item.query
                query.authenticationContext = .passphrase(try keychain.presencePassphrase())
                return try opened.retrieve(query, as: String.self)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List items: class, identity and label, never secrets."
        )
        @OptionGroup var keychain: KeychainOptions
        @Flag(help: "Print one JSON array.") var json = false

        func run() async throws {
            let items = try await keychain.open().items()
            if json { return try printJSON(items.map(KeychainItemOutput.init)) }
            printTable(
                ["CLASS", "ITEM", "LABEL", "MODIFIED"],
                items.map { info in
                    let attributes = info.identity.attributes.sorted { $0.key < $1.key }
                        .map { "\($0.key)=\($0.value)" }
                    return [
                        "\(info.identity.itemClass)", attributes.joined(separator: " "), info.label ?? "",
                        info.modificationDate.formatted(.iso8601),
                    ]
                }
            )
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a secret (exit 7 when there is none).")
        @OptionGroup var keychain: KeychainOptions
        @OptionGroup var item: ItemOptions

        func run() async throws {
            guard try await keychain.open().remove(item.query) else {
                throw CLIError(description: "error: no such item", exitCode: ExitCode(7))
            }
            print("removed")
        }
    }

    struct ChangePassphrase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-passphrase",
            abstract: "Re-wrap the keychain's key under a new passphrase (items are not re-encrypted)."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "Read the new passphrase from this file's first line (default: the next line of stdin).")
        var newPassphraseFile: String?
        @Option(help: "Argon2id cost for the new passphrase.") var kdf = "moderate"

        func run() async throws {
            let old = try keychain.passphrase(prompt: "current passphrase: ")
            let new = try KeychainOptions.readSecretLine(file: newPassphraseFile, prompt: "new passphrase: ")
            guard !new.isEmpty else {
                throw CLIError(description: "error: empty passphrase", exitCode: .validationFailure)
            }
            try EncryptedFileBackend.open(at: keychain.fileURL).changePassphrase(
                from: old,
                to: new,
                parameters: try KeychainCommand.parameters(kdf)
            )
            print("passphrase changed")
        }
    }

    static func parameters(_ name: String) throws -> Argon2id.Parameters {
        switch name {
        case "interactive": .interactive
        case "moderate": .moderate
        case "sensitive": .sensitive
        case "minimum": .minimum
        default: throw CLIError(description: "error: unknown KDF preset \(name)", exitCode: .validationFailure)
        }
    }
}

/// A keychain item as `--json` prints it: what identifies it and what was recorded, never its value.
struct KeychainItemOutput: Encodable {
    var itemClass: String
    var attributes: [String: String]
    var label: String?
    var comment: String?
    var created: Date
    var modified: Date
    var details: [String: String]

    init(_ info: ItemInfo) {
        itemClass = "\(info.identity.itemClass)"
        attributes = info.identity.attributes
        label = info.label
        comment = info.comment
        created = info.creationDate
        modified = info.modificationDate
        details = info.attributes
    }

    enum CodingKeys: String, CodingKey {
        case attributes, label, comment, created, modified, details
        case itemClass = "class"
    }
}
