// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto

/// `strongroom keys …`: generate key material.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Generate client key pairs and access keys.",
        subcommands: [GenerateClient.self, GenerateAccessKey.self]
    )

    /// `strongroom keys client`: a new X25519 + Ed25519 pair, as JSON in the E3DB configuration's field names.
    struct GenerateClient: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client",
            abstract: "Print a new client key set (encryption and signing) as JSON."
        )

        func run() async throws {
            let keys = ClientKeys.generate()
            let json: [String: String] = [
                "public_key": keys.encryptionKey.publicKey.base64URLEncoded,
                "private_key": keys.encryptionKey.base64URLEncoded,
                "public_signing_key": keys.signingKey.publicKey.base64URLEncoded,
                "private_signing_key": keys.signingKey.base64URLEncoded,
            ]
            let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }

    /// `strongroom keys access-key --output FILE`: a new random access key in a 0600 file.
    struct GenerateAccessKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "access-key",
            abstract: "Write a new random access key to a file (mode 0600)."
        )

        @Option(name: .shortAndLong, help: "Where to write the key. Must not exist.")
        var output: String

        func run() async throws {
            try await reportingErrors {
                try KeyFile.write(AccessKey(), to: output)
                print("wrote a new access key to \(output)")
            }
        }
    }
}
