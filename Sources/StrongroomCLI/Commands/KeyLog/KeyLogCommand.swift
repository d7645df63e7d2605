// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// `strongroom keylog …`: the server's key log, verified.
struct KeyLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keylog",
        abstract: "Check the server's key log: its checkpoint, a client's keys, or every leaf.",
        subcommands: [Checkpoint.self, Verify.self, Monitor.self]
    )

    /// `strongroom keylog checkpoint`: the newest checkpoint, verified and kept.
    struct Checkpoint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch the newest checkpoint, check it against the one kept, and keep it."
        )
        @OptionGroup var profile: ProfileOptions

        func run() async throws {
            let checkpoint = try await profile.client().keyLogCheckpoint()
            print(KeyLogCommand.describe(checkpoint))
        }
    }

    /// `strongroom keylog verify --client ID`: another client's keys, proven in the log.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that the keys the server gives for a client are the ones its key log binds to it."
        )
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The client whose keys to check: a client ID or a profile name.") var client: String

        func run() async throws {
            let id = try await ClientReference.resolve(client, option: "--client", profiles: profile.directory)
            let connection = try await profile.client()
            let info = try await connection.clientInfo(of: id)
            let checkpoint = try await connection.keyLogCheckpoint()
            print("verified: the keys of \(ClientID(id).description) are in the key log")
            print("  encryption key \(info.publicKey.base64URLEncoded)")
            if let signing = info.signingKey { print("  signing key    \(signing.base64URLEncoded)") }
            print(KeyLogCommand.describe(checkpoint))
        }
    }

    /// `strongroom keylog monitor`: every leaf, the root recomputed, no foreign key bound to this client.
    struct Monitor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read every leaf of the log: its root must match, and no key but this client's may bear its ID."
        )
        @OptionGroup var profile: ProfileOptions

        func run() async throws {
            let report = try await profile.client().monitorKeyLog()
            print("scanned \(report.checkpoint.size) leaves: they hash to the checkpoint's root")
            print(
                "this client's keys: leaf \(report.ownKeyLeaves.map(String.init).joined(separator: ", ")); "
                    + "no other key bears its ID"
            )
        }
    }

    /// A checkpoint in two lines.
    static func describe(_ checkpoint: LogCheckpoint) -> String {
        let time = checkpoint.extensions.first { $0.hasPrefix("timestamp ") }.flatMap {
            Int64($0.dropFirst("timestamp ".count)).map { Date(timeIntervalSince1970: TimeInterval($0)) }
        }
        return "checkpoint \(checkpoint.origin): \(checkpoint.size) leaves, root "
            + "\(Data(checkpoint.root.bytes).base64EncodedString())"
            + (time.map { ", signed \($0.formatted(.iso8601))" } ?? "")
    }
}
