// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomClient
import StrongroomCore
import StrongroomCrypto

/// `strongroom keys post-quantum`: gives this client an X-Wing key when its profile has none (a profile made before
/// post-quantum sharing, or an official SDK's), saves it, and publishes it in the key log, so access keys are sealed
/// to the client post-quantum. Running it again publishes the same key again, which changes nothing.
struct PublishHybridKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post-quantum",
        abstract: "Give this client a post-quantum (X-Wing) key if its profile has none, and publish it so access "
            + "keys are sealed to it post-quantum."
    )
    @OptionGroup var profile: ProfileOptions

    func run() async throws {
        var configuration = try await profile.configuration()
        let key: HybridPrivateKey
        if let existing = configuration.keys.hybridKey {
            key = existing
        } else {
            // Saved before it is published: a run stopped in between publishes the same key next time.
            key = HybridPrivateKey()
            configuration.keys.hybridKey = key
            try await profile.save(configuration)
        }
        let client = try await profile.client()
        let index = try await client.publishHybridKey(key)
        print("post-quantum key \(key.publicKey.digest.prefix(8).hexString) published (key log leaf \(index))")
    }
}

/// `--post-quantum off|prefer|require`: a ``PostQuantumPolicy/Mode`` as the command line names it.
enum PostQuantumOption: String, ExpressibleByArgument, CaseIterable {
    case off, prefer, require

    /// The SDK's mode of the same name.
    var mode: PostQuantumPolicy.Mode {
        switch self {
        case .off: .off
        case .prefer: .prefer
        case .require: .require
        }
    }
}
