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
            try await reportingErrors {
                let passphrase = try PKICommand.p12Passphrase(p12PassphraseFile)
                let identity = try PKCS12.import(try PKICommand.read(file), passphrase: passphrase)
                try keychain.open().store(identity, label: label)
                print("imported \(label): \(identity.certificate.subject)")
            }
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
            try await reportingErrors {
                let store = try keychain.open()
                guard let identity = try store.retrieve(.identity(for: label)) else {
                    throw CLIError(description: "error: no identity \(label) in the keychain", exitCode: .init(7))
                }
                var chain: [Certificate] = []
                while let next = try store.retrieve(
                    .certificate(for: "\(label).chain.\(chain.count + 1)"),
                    as: Certificate.self
                ) {
                    chain.append(next)
                }
                let bundle = try PKCS12Identity(
                    certificate: identity.certificate,
                    chain: chain,
                    privateKey: identity.privateKey
                )
                let bytes = try PKCS12.export(bundle, passphrase: try PKICommand.p12Passphrase(p12PassphraseFile))
                do {
                    try AtomicFile.write(Data(bytes), to: output, mode: .createNew)  // 0600, never over a file
                } catch {
                    throw CLIError(description: "error: cannot create \(output) (\(error))", exitCode: .init(6))
                }
                print("wrote \(output)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keychain's keys, certificates and identities (never their secrets)."
        )
        @OptionGroup var keychain: KeychainOptions

        func run() async throws {
            try await reportingErrors {
                for item in try keychain.open().items()
                where ["keys", "cert", "idnt"].contains(item.identity.itemClass) {
                    print("\(item.identity.canonical)\(item.label.map { "  \($0)" } ?? "")")
                }
            }
        }
    }
}
