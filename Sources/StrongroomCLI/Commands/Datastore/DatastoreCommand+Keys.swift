// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomDatastore

extension DatastoreCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a datastore: encrypted under --key-file or a password (its data key then generated and "
                + "kept wrapped in the keychain), or --unencrypted.",
            discussion: "Fails with status 9 when a datastore of that name exists."
        )
        @OptionGroup var store: DatastoreOptions

        func run() async throws {
            let source = try store.datastore.keySource  // validate before touching the directory
            if try store.datastore.manager.allDatastores().contains(store.name) {
                throw CLIError(description: "error: the datastore \(store.name) exists", exitCode: .init(9))
            }
            try await store.withDatastore(mode: .createIfMissing) { datastore in
                let kind = datastore.isEncrypted ? "encrypted" : "unencrypted"
                let how =
                    switch source {
                    case .file: " (key file)"
                    case .password: " (password, key in the keychain)"
                    case .keychain: " (key in the keychain)"
                    case .none: ""
                    }
                print("created \(datastore.name), \(kind)\(how)")
            }
        }
    }

    struct Rekey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt the datastore in place under the key in --new-key-file (write that file first)."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The new 32-byte key file (base64url, mode 0600).") var newKeyFile: String

        func run() async throws {
            try await store.run { datastore in
                try await datastore.rekey(to: try DatastoreSelection.provider(newKeyFile))
                print("rekeyed")
            }
        }
    }

    struct ChangePassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-wrap a password-protected datastore's data key under a new password; the datastore itself "
                + "is not rewritten.",
            discussion: """
                The current password comes as for every store command (--password-file, \
                STRONGROOM_DATASTORE_PASSWORD, or a prompt); the new one from --new-password-file, \
                STRONGROOM_DATASTORE_NEW_PASSWORD, or a prompt.
                """
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "Read the new password from this file's first line.") var newPasswordFile: String?

        func run() async throws {
            guard case .password = try store.datastore.keySource else {
                throw CLIError(
                    description: "error: change-password needs the password key source (--password)",
                    exitCode: .validationFailure
                )
            }
            guard try store.datastore.manager.exists(named: store.name) else {
                throw CLIError(
                    description: "error: there is no datastore '\(store.name)' in \(store.directory)",
                    exitCode: .init(7)
                )
            }
            let provider = try await store.keychainProvider()
            let newPassword = try KeychainOptions.secret(
                file: newPasswordFile,
                environment: "STRONGROOM_DATASTORE_NEW_PASSWORD",
                prompt: "new datastore password: "
            )
            guard !newPassword.isEmpty else {
                throw CLIError(description: "error: the new password is empty", exitCode: .validationFailure)
            }
            try await provider.changePassword(to: newPassword)
            print("password changed")
        }
    }

    struct IndexCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Query indexes: create (JSON or text), list, delete.",
            subcommands: [CreateIndex.self, ListIndexes.self, DeleteIndex.self]
        )
    }

    struct CreateIndex: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Define and build an index over dotted fields; the same definition again does nothing."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The index's name (a letter, then letters, digits or _).") var indexName: String
        @Flag(help: "A full-text index (FTS5) for $text, instead of a JSON index.") var text = false
        @Option(help: "A text index's tokenizer: simple or porter.") var tokenizer = "simple"
        @Argument(help: "The fields, as dotted paths.") var fields: [String]

        func run() async throws {
            guard let tokenizer = QueryIndex.Tokenizer(rawValue: tokenizer) else {
                throw CLIError(description: "error: the tokenizer is simple or porter", exitCode: .init(4))
            }
            try await store.withDatastore { datastore in
                let name = try await datastore.ensureIndexed(
                    fields: fields,
                    name: indexName,
                    type: text ? .text : .json,
                    tokenizer: tokenizer
                )
                print("indexed \(name)")
            }
        }
    }

    struct ListIndexes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List indexes: NAME TYPE FIELDS (and the tokenizer of a text index)."
        )
        @OptionGroup var store: DatastoreOptions

        func run() async throws {
            try await store.run { datastore in
                for (name, index) in try await datastore.listIndexes().sorted(by: { $0.key < $1.key }) {
                    let tokenizer = index.tokenizer.map { " tokenizer=\($0.rawValue)" } ?? ""
                    print("\(name) \(index.kind.rawValue) \(index.fields.joined(separator: ","))\(tokenizer)")
                }
            }
        }
    }

    struct DeleteIndex: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an index.")
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The index's name.") var indexName: String

        func run() async throws {
            try await store.run { datastore in
                try await datastore.deleteIndex(named: indexName)
                print("deleted \(indexName)")
            }
        }
    }
}
