// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomPKI
import X509

extension PKICommand {
    struct ImportP12: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-p12",
            abstract: "Import a PKCS#12 file's identity and chain into the keychain.",
            discussion: "The file's passphrase: --p12-passphrase-file, STRONGROOM_P12_PASSPHRASE, or a prompt."
        )
        @OptionGroup var keychain: KeychainOptions
        @Argument(help: "The .p12 file.") var file: String
        @Option(help: "The identity's label.") var label: String
        @Option(help: "Read the PKCS#12 passphrase from this file's first line.") var p12PassphraseFile: String?

        func run() async throws {
            let passphrase = try PKICommand.p12Passphrase(p12PassphraseFile)
            let identity = try PKCS12.import(try PKICommand.read(file), passphrase: passphrase)
            try await keychain.open().store(identity, label: label)
            print("imported \(label): \(identity.certificate.subject)")
        }
    }

    struct ExportP12: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-p12",
            abstract: "Export an identity from the keychain as a PKCS#12 file (mode 0600, never overwritten).",
            discussion: "The file's passphrase: --p12-passphrase-file, STRONGROOM_P12_PASSPHRASE, or a prompt."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "The identity's label.") var label: String
        @Option(help: "The file to write.") var output: String
        @Option(help: "Read the PKCS#12 passphrase from this file's first line.") var p12PassphraseFile: String?

        func run() async throws {
            guard let bundle = try await keychain.open().chainedIdentity(for: label) else {
                throw CLIError(description: "error: no identity \(label) in the keychain", exitCode: .init(7))
            }
            let bytes = try PKCS12.export(bundle, passphrase: try PKICommand.p12Passphrase(p12PassphraseFile))
            do {
                try AtomicFile.write(Data(bytes), to: output, mode: .createNew)  // 0600, never over a file
            } catch {
                throw CLIError(description: "error: cannot create \(output) (\(error))", exitCode: .init(6))
            }
            print("wrote \(output)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keychain's keys, certificates and identities (never their secrets).",
            discussion: """
                Filters combine: `--type rsa --key-class private`, `--issuer 'CN=Issuer A'` (the issuer as printed), \
                `--label anchor`. Each line shows the item, its label and what was recorded when it was stored.
                """
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "Only keys of this type: ec, rsa, ed25519, x25519, symmetric.") var type: String?
        @Option(help: "Only keys of this class: private, public, symmetric.") var keyClass: String?
        @Option(help: "Only certificates and identities issued by this name (RFC 4514 text, as listed).")
        var issuer: String?
        @Option(help: "Only items with this label.") var label: String?
        @Flag(help: "Print one JSON array.") var json = false

        func run() async throws {
            if let keyClass, KeyClass(rawValue: keyClass) == nil {
                throw CLIError(
                    description: "error: --key-class is private, public or symmetric",
                    exitCode: .validationFailure
                )
            }
            // The keychain's own filters, one per class; an item is listed when its class's filter matches.
            let conditions = ["keyType": type, "keyClass": keyClass, "issuer": issuer]
            let filters: [@Sendable (ItemInfo) -> Bool] = [
                ItemFilter<SecKey>(conditions: conditions, label: label).matches,
                ItemFilter<SecCertificate>(conditions: conditions, label: label).matches,
                ItemFilter<SecIdentity>(conditions: conditions, label: label).matches,
            ]
            let items = try await keychain.open().items().filter { item in filters.contains { $0(item) } }
            if json { return try printJSON(items.map(KeychainItemOutput.init)) }
            for item in items { print(Self.line(item)) }
        }

        /// `class/identity  label  [type size class]  subject ← issuer`.
        static func line(_ item: ItemInfo) -> String {
            var parts = [item.identity.canonical]
            if let label = item.label { parts.append(label) }
            if let key = item.keyAttributes {
                parts.append("[\(key.keyType) \(key.keySizeInBits) \(key.keyClass)]")
            } else if let type = item.attributes["keyType"], let size = item.attributes["keySizeInBits"] {
                parts.append("[\(type) \(size)]")
            }
            if let subject = item.attributes["subject"], let issuer = item.attributes["issuer"] {
                parts.append("\(subject) ← \(issuer)")
            }
            return parts.joined(separator: "  ")
        }
    }
}
