// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// `strongroom encrypt`: an E3DB document encrypted and signed locally (e3db-swift's offline `encrypt`).
struct EncryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt and sign fields locally; prints the encrypted document as JSON.",
        discussion: "Without --eak the writer key of the type is fetched (or created) once; with it, no network."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(help: "The record type.") var type: String
    @Option(help: "An EAKInfo JSON file (see `strongroom writer-key`).") var eak: String?
    @Option(help: "The fields as one JSON object of strings (- reads standard input).") var json: String?
    @Argument(help: "Fields as name=value.") var fields: [String] = []

    func run() async throws {
        let client = try await profile.client()
        let info =
            if let eak {
                try EAKFile.read(eak)
            } else {
                try await client.createWriterKey(type: type)
            }
        try printJSON(try client.encrypt(type: type, data: try Fields.parse(fields, json: json), eakInfo: info))
    }
}

/// `strongroom decrypt`: opens a document from `encrypt` and verifies its signature.
struct DecryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt an encrypted document and verify its signature (exit 3 if it was altered)."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(help: "An EAKInfo JSON file (default: fetch the reader key for the document's writer).") var eak: String?
    @Argument(help: "The encrypted document (JSON file, - for standard input).") var input = "-"

    func run() async throws {
        let client = try await profile.client()
        guard let document = try? JSONDecoder().decode(EncryptedDocument.self, from: try Fields.read(input)) else {
            throw CLIError(description: "error: \(input) is not an encrypted document", exitCode: ExitCode(4))
        }
        let info =
            if let eak {
                try EAKFile.read(eak)
            } else {
                try await client.getReaderKey(
                    writerID: document.meta.writerID,
                    userID: document.meta.userID,
                    type: document.meta.type
                )
            }
        try printJSON(try client.decrypt(encryptedDocument: document, eakInfo: info))
    }
}

/// `strongroom writer-key`: saves the type's EAKInfo for offline `encrypt`/`decrypt`.
struct WriterKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writer-key",
        abstract: "Print the type's writer key (EAKInfo JSON: the access key encrypted to you, never in the clear)."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(help: "The record type.") var type: String

    func run() async throws {
        try printJSON(try await profile.client().createWriterKey(type: type))
    }
}

/// `strongroom sign`: signs a JSON document with the profile's signing key.
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a JSON document (objects, arrays, strings, integers, booleans, null)."
    )

    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The JSON document (file, - for standard input).") var input = "-"

    func run() async throws {
        guard let document = try? JSONDecoder().decode(JSONValue.self, from: try Fields.read(input)) else {
            throw CLIError(description: "error: \(input) is not JSON", exitCode: ExitCode(4))
        }
        let signed = try await profile.client().sign(document: try SignableValue.cli(document))
        try printJSON(SignedJSON(document: document, signature: Base64URL.encode(signed.signature)))
    }
}

/// `strongroom verify`: checks a document from `sign`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a signed document with the signer's public signing key (exit 3 if it does not verify)."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(
        help: """
            The signer's public signing key (base64url; `strongroom whoami` shows it), as `--public-key=KEY` when it \
            starts with '-'. Default: your own.
            """
    )
    var publicKey: String?
    @Option(help: "Fetch the signing key of this client ID from the server instead of --public-key.")
    var signer: String?
    @Argument(help: "The signed document (file, - for standard input).") var input = "-"

    func run() async throws {
        guard let signed = try? JSONDecoder().decode(SignedJSON.self, from: try Fields.read(input)) else {
            throw CLIError(description: "error: \(input) is not a signed document", exitCode: ExitCode(4))
        }
        let configuration = try await profile.configuration()
        var key =
            try publicKey.map { try SigningPublicKey(base64URLEncoded: $0) }
            ?? configuration.keys.signingKey.publicKey
        if let signer {
            guard publicKey == nil, let id = UUID(uuidString: signer) else {
                throw CLIError(
                    description: "error: --signer is a client ID, and not used with --public-key",
                    exitCode: .validationFailure
                )
            }
            guard let fetched = try await profile.client().clientInfo(of: id).signingKey else {
                throw CLIError(description: "error: \(signer) has no signing key", exitCode: ExitCode(3))
            }
            key = fetched
        }
        let signature: Data
        do {
            signature = try Base64URL.decode(signed.signature)
        } catch {
            throw CLIError(description: "error: the signature is not base64url", exitCode: ExitCode(4))
        }
        try Client(configuration: configuration).verify(
            signed: SignedDocument(document: try SignableValue.cli(signed.document), signature: signature),
            publicSigningKey: key
        )
        print("verified")
    }
}

/// EAKInfo files.
enum EAKFile {
    static func read(_ path: String) throws -> EAKInfo {
        guard let info = try? JSONDecoder().decode(EAKInfo.self, from: try Fields.read(path)) else {
            throw CLIError(description: "error: \(path) is not an EAKInfo JSON file", exitCode: ExitCode(4))
        }
        return info
    }
}
