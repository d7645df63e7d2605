// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomClient

/// `strongroom keys finish-rotation --type T`: re-wraps this client's records of a type still under an older key
/// generation — after a rotation that was stopped, or one an authorizer made when it revoked a reader.
struct FinishRotation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "finish-rotation",
        abstract: "Re-wrap this client's records of a type still under an older key (after a stopped rotation, or "
            + "one an authorizer made)."
    )
    @OptionGroup var profile: ProfileOptions
    @Option(help: "The record type.") var type: String

    func run() async throws {
        Interrupts.hint("part of the records may be re-wrapped: run the same command again to finish")
        let client = try await profile.client()
        guard let report = try await Self.run(of: type, by: client) else {
            print("nothing to finish: this client has no key for \(type)")
            return
        }
        print(
            "\(type) is at key generation \(report.generation): \(ShareTarget.records(report.recordsRewrapped)) "
                + "re-wrapped" + ShareTarget.left(report)
        )
    }

    /// Finishes an interrupted rotation of `type`; nil for a type `client` never keyed.
    static func run(of type: String, by client: Client) async throws -> KeyRotationReport? {
        do {
            return try await client.finishKeyRotation(type: type)
        } catch  where error.code == .notFound {
            return nil
        }
    }
}
