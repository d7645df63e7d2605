// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomPKI
import X509

/// `strongroom pki …`: key pairs in the keychain, CSRs, certificates, chains and PKCS#12 files.
struct PKICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pki",
        abstract: "Key pairs in the keychain, CSRs, certificates and chains, PKCS#12 import and export.",
        subcommands: [
            KeyGen.self, Request.self, Show.self, Verify.self, Identity.self, ImportP12.self, ExportP12.self,
            List.self, Enroll.self, Renew.self, Delete.self, SaveTrust.self, Probe.self,
        ]
    )

    struct KeyGen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keygen",
            abstract: "Generate a key pair in the keychain; print its pin and public key (PEM)."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "The key pair's tag.") var tag: String
        @Option(help: "p256 (default), p384, p521, ed25519, rsa-2048, rsa-3072 or rsa-4096.") var type = "p256"

        func run() async throws {
            let algorithm = try PKICommand.algorithm(type)
            let pair = try await keychain.open().generateKeyPair(algorithm, tag: tag)
            print("pin sha256/\(pair.publicKey.pin)")
            print(try pair.publicKey.pemString())
        }
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "csr",
            abstract: "Make a CSR signed by a key pair in the keychain; PEM on standard output."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "The key pair's tag.") var tag: String
        @Option(help: "Common name (CN).") var commonName: String?
        @Option(help: "Organisation (O).") var organization: String?
        @Option(help: "Organisational unit (OU).") var organizationalUnit: String?
        @Option(help: "Country (C), two letters.") var country: String?
        @Option(help: "The subject's emailAddress attribute.") var emailAddress: String?
        @Option(help: "A DNS name (repeatable).") var dns: [String] = []
        @Option(help: "An e-mail address SAN (repeatable).") var email: [String] = []
        @Option(help: "A URI SAN (repeatable).") var uri: [String] = []
        @Option(help: "An IP address SAN (repeatable).") var ip: [String] = []
        @Flag(help: "Ask for TLS client authentication (EKU clientAuth).") var clientAuth = false
        @Flag(help: "Ask for TLS server authentication (EKU serverAuth).") var serverAuth = false

        func run() async throws {
            guard let pair = try await keychain.open().keyPair(for: tag) else {
                throw CLIError(description: "error: no key pair \(tag) in the keychain", exitCode: .init(7))
            }
            var template = SigningRequestTemplate(commonName: commonName)
            template.organization = organization
            template.organizationalUnit = organizationalUnit
            template.country = country
            template.emailAddress = emailAddress
            template.dnsNames = dns
            template.emailAddresses = email
            template.uris = uri
            template.ipAddresses = ip
            template.extendedKeyUsage = (clientAuth ? [.clientAuth] : []) + (serverAuth ? [.serverAuth] : [])
            print(try template.signingRequest(signer: pair).pemString())
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe the certificates (PEM bundle or DER) or the CSR in a file."
        )
        @Argument(help: "The file.") var file: String

        func run() async throws {
            let bytes = try PKICommand.read(file)
            if let csr = try? CertificateSigningRequest(encoded: bytes) {  // a certificate never parses as one
                try csr.verifySignature()
                // Display only: a key type outside KeyAlgorithm shows as unknown.
                let key = (try? KeyAlgorithm(of: csr.publicKey).description) ?? "unknown"
                print("request:     \(csr.subject)\nkey:         \(key)\npin:         \(csr.publicKey.pin)")
                print("signature:   valid")
                return
            }
            let certificates = try CertificateBundle.certificates(from: bytes)
            print(certificates.map(\.summary).joined(separator: "\n\n"))
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a certificate against trust anchors; print the chain, or fail with the reason."
        )
        @Argument(help: "The leaf certificate (PEM or DER; further PEM certificates are intermediates).")
        var file: String
        @Option(help: "The trusted anchors (PEM bundle).") var anchors: String
        @Option(help: "More intermediates (PEM bundle).") var intermediates: String?
        @Option(help: "any (default), client or server.") var purpose = "any"
        @Option(help: "A host name or IP address the certificate must name.") var host: String?
        @Option(help: "A URI the certificate must name.") var uri: String?
        @Option(help: "An e-mail address the certificate must name.") var email: String?

        func run() async throws {
            let given = try CertificateBundle.certificates(from: try PKICommand.read(file))
            var extra = Array(given.dropFirst())
            if let intermediates {
                extra += try CertificateBundle.certificates(from: try PKICommand.read(intermediates))
            }
            let validator = ChainValidator(
                anchors: try CertificateBundle.certificates(from: try PKICommand.read(anchors)),
                intermediates: extra
            )
            let wanted: ChainValidator.Purpose
            switch purpose {
            case "any": wanted = .any
            case "client": wanted = .clientAuth
            case "server": wanted = .serverAuth
            default: throw CLIError(description: "error: purpose is any, client or server", exitCode: .init(4))
            }
            let name =
                host.map(ChainValidator.ExpectedName.host) ?? uri.map(ChainValidator.ExpectedName.uri)
                ?? email.map(ChainValidator.ExpectedName.email)
            let chain = try await validator.validate(given[0], purpose: wanted, name: name)
            print("ok")
            for certificate in chain { print("  \(certificate.subject)") }
        }
    }

    struct Identity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a certificate issued for a key pair as an identity (key and certificate) in the keychain."
        )
        @OptionGroup var keychain: KeychainOptions
        @Option(help: "The key pair's tag.") var tag: String
        @Option(help: "The certificate file (PEM or DER; further PEM certificates are its chain).") var certificate:
            String
        @Option(help: "The identity's label.") var label: String

        func run() async throws {
            let certificates = try CertificateBundle.certificates(from: try PKICommand.read(certificate))
            let store = try await keychain.open()
            guard let key = try store.retrieve(.privateKey(for: tag), as: Certificate.PrivateKey.self) else {
                throw CLIError(description: "error: no key pair \(tag) in the keychain", exitCode: .init(7))
            }
            let identity = try PKCS12Identity(
                certificate: certificates[0],
                chain: Array(certificates.dropFirst()),
                privateKey: key
            )
            try store.store(identity, label: label)
            print("stored identity \(label)")
        }
    }

    /// A file's bytes, at most 4 MiB.
    static func read(_ path: String) throws -> [UInt8] {
        let size = try InputFile.size(path)
        guard size <= 4 << 20 else {
            throw CLIError(
                description: "error: \(path) is larger than 4 MiB: not a certificate file",
                exitCode: .init(4)
            )
        }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw CLIError(description: "error: \(path) cannot be read", exitCode: .init(6))
        }
        return Array(data)
    }

    static func p12Passphrase(_ file: String?) throws -> String {
        try KeychainOptions.secret(file: file, environment: "STRONGROOM_P12_PASSPHRASE", prompt: "PKCS#12 passphrase: ")
    }
}
