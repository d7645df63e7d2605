// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto

/// `strongroom keys …`: generate key material.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Generate client key pairs and access keys; audit this client's keys in the key log; compare "
            + "safety numbers with contacts; replace this client's keys; publish a post-quantum key and show it as an age "
            + "recipient; finish a key rotation.",
        subcommands: [
            GenerateClient.self, GenerateAccessKey.self, Audit.self, Fingerprint.self, VerifyContact.self,
            FinishRotation.self, RotateKeys.self, PublishHybridKey.self, AgeKeyCommand.self,
        ]
    )

    /// `strongroom keys audit`: this client's key history in the server's key log, verified.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show this client's key history in the server's key log, each leaf proven (exit 3 if a key "
                + "this client did not create bears its ID)."
        )
        @OptionGroup var profile: ProfileOptions

        func run() async throws {
            let history = try await profile.client().auditKeys()
            for entry in history.entries {
                let time = Date(timeIntervalSince1970: TimeInterval(entry.time / 1_000_000))
                let kind = entry.kind == .registered ? "registered" : "keys changed"
                let whose = entry.isCurrent ? "this client's keys" : "this client's earlier keys"
                print("leaf \(entry.index)  \(kind)  \(time.formatted(.iso8601))  \(whose)")
            }
            print(KeyLogCommand.describe(history.checkpoint))
        }
    }

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
            try KeyFile.write(AccessKey(), to: output)
            print("wrote a new access key to \(output)")
        }
    }
}
