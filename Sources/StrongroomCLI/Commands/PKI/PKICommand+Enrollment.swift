// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomClient
import StrongroomKeychain
import StrongroomPKI

extension PKICommand {
    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Get a client certificate from the server's CA: key in the keychain, CSR, identity stored.",
            discussion: """
                Afterwards pass `--client-identity LABEL` to any networked command to use mutual TLS.
                """
        )
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The keychain label of the key pair and identity.") var label: String
        @Option(help: "p256 (default), p384, p521, ed25519 or rsa-2048/3072/4096.") var type = "p256"

        func run() async throws {
            let algorithm = try PKICommand.algorithm(type)
            let keychain = try await profile.keychain.open()
            _ = try await profile.client().enroll(keychain: keychain, label: label, algorithm: algorithm)
            try PKICommand.printIdentity(try ClientIdentity.keychain(keychain, label: label), label: label)
        }
    }

    struct Renew: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Renew the client certificate over mutual TLS with the current one; replace the identity."
        )
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The keychain label of the identity.") var label: String
        @Flag(help: "Use a new key for the new certificate.") var rotateKey = false

        func run() async throws {
            let keychain = try await profile.keychain.open()
            _ = try await profile.client().renewCertificate(
                keychain: keychain,
                label: label,
                rotatingKey: rotateKey
            )
            try PKICommand.printIdentity(try ClientIdentity.keychain(keychain, label: label), label: label)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an identity and its chain, and the key pair of the same name, from the keychain.",
            discussion: """
                What `pki enroll --label NAME` or `pki keygen --tag NAME` and `pki identity --label NAME` stored.                 A certificate the server issued stays valid until it expires: revoke it there                 (`strongroom-server ca revoke SERIAL`) if the key may have leaked.
                """
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(name: [.customLong("label"), .customLong("tag")], help: "The identity's label or key pair's tag.")
        var label: String

        func run() async throws {
            let keychain = try await keychain.open()
            let identity = try keychain.removeIdentity(label: label)
            let pair = try keychain.removeKeyPair(tag: label)
            guard identity || pair else {
                throw CLIError(
                    description: "error: the keychain holds no identity or key pair named \(label)",
                    exitCode: .init(7)
                )
            }
            print(
                "deleted \(label): "
                    + [identity ? "identity" : nil, pair ? "key pair" : nil].compactMap { $0 }.joined(
                        separator: ", "
                    )
            )
        }
    }

    /// The key type `name` (`p256`, `rsa-3072`, …), or exit 4.
    static func algorithm(_ name: String) throws -> KeyAlgorithm {
        guard let algorithm = KeyAlgorithm(name: name) else {
            throw CLIError(description: "error: unknown key type \(name)", exitCode: .init(4))
        }
        return algorithm
    }

    /// `enrolled LABEL`, then the certificate's summary.
    static func printIdentity(_ identity: ClientIdentity, label: String) throws {
        print("enrolled \(label)")
        print(identity.certificate.summary)
    }
}
