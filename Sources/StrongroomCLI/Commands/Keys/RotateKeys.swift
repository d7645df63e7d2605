// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomKeychain

/// `strongroom keys rotate`: replaces this client's keys and API secret, keeping its ID and everything shared with
/// it. The new configuration is saved as a pending profile before the server is asked, so an interrupted run loses
/// nothing: run the command again to finish.
struct RotateKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Replace this client's keys and API secret (after a lost device or a leak); what is shared with it "
            + "stays readable, the old keys open nothing written afterwards."
    )
    @OptionGroup var profile: ProfileOptions

    /// Where the replacement waits until the server took it.
    var pendingProfile: String {
        profile.profile.isEmpty ? "pending-key-change" : "\(profile.profile)/pending-key-change"
    }

    func run() async throws {
        var current = try await profile.configuration()
        let verification = try profile.connection.keyLogVerification()
        current.keyLog = verification
        let options = try await profile.transportOptions(server: current.apiURL)
        var replacement: Client.Configuration
        if var pending = try? await savedPending() {
            pending.keyLog = verification
            // An earlier run saved this one: if the server took it already, only the rest is left to do.
            let renewed = try Client(configuration: pending, options: options)
            if (try? await renewed.auditKeys()) != nil {
                try await profile.save(pending)
                try await removePending()
                print("the server already holds the new keys from an earlier run")
                try await finish(renewed)
                return
            }
            replacement = pending
        } else {
            replacement = current.replacingKeys()
            try await profile.connection.save(replacement, as: pendingProfile, keychain: profile.keychain)
        }
        Interrupts.hint("the new keys are saved: run the same command again to finish")
        let client = try Client(configuration: current, options: options)
        let report = try await client.rotateKeys(to: replacement)
        try await profile.save(report.configuration)
        try await removePending()
        print(
            "keys replaced (key log leaf \(report.leafIndex)): \(report.accessKeysRewrapped) access "
                + "\(report.accessKeysRewrapped == 1 ? "key" : "keys") re-wrapped, "
                + "\(Self.types(report.typesRotated.count)) rotated; the old keys and API secret no longer work"
        )
        for (type, error) in report.rotationsPending.sorted(by: { $0.key < $1.key }) {
            printError("warning: \(type) was not rotated (\(error.message)): run strongroom keys rotate again")
        }
        if let error = report.hybridKeyPending {
            printError(
                "warning: the new post-quantum key was not published (\(error.message)): run strongroom keys "
                    + "post-quantum"
            )
        }
        guard report.rotationsPending.isEmpty else { throw ExitCode(1) }
    }

    /// Rotates every type the renewed client writes.
    private func finish(_ client: Client) async throws {
        let report = try await client.finishKeyChange()
        print("\(Self.types(report.typesRotated.count)) rotated")
        for (type, error) in report.rotationsPending.sorted(by: { $0.key < $1.key }) {
            printError("warning: \(type) was not rotated (\(error.message)): run strongroom keys rotate again")
        }
        guard report.rotationsPending.isEmpty else { throw ExitCode(1) }
    }

    /// "1 type this client writes", "2 types …".
    static func types(_ count: Int) -> String { "\(count) \(count == 1 ? "type" : "types") this client writes" }

    private func savedPending() async throws -> Client.Configuration {
        var connection = profile.connection
        connection.profile = pendingProfile
        return try await connection.savedConfiguration(keychain: profile.keychain)
    }

    private func removePending() async throws {
        if profile.connection.inKeychain {
            _ = try await profile.keychain.open().remove(Client.Configuration.keychainQuery(profile: pendingProfile))
        } else {
            let folder = profile.directory.appending(path: pendingProfile)
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
