// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomClient
import StrongroomCore
import StrongroomCrypto

/// `strongroom keys post-quantum`: gives this client an X-Wing key when its profile has none (a profile made before
/// post-quantum sharing, or an official SDK's), saves it, and publishes it in the key log, so access keys are sealed
/// to the client post-quantum. Running it again publishes the same key again, which changes nothing.
///
/// `--type TYPE --mode MODE` instead saves how this client seals TYPE's access keys from now on, in the profile
/// (``PostQuantumPolicy/modes``): `require` also makes it refuse a key of TYPE sealed with X25519 alone.
struct PublishHybridKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post-quantum",
        abstract: "Give this client a post-quantum (X-Wing) key if its profile has none, and publish it so access "
            + "keys are sealed to it post-quantum; or, with --type and --mode, save one type's policy."
    )
    @OptionGroup var profile: ProfileOptions

    @Option(help: "A record type whose policy --mode sets (saved in the profile).")
    var type: String?

    @Option(
        help: """
            How TYPE's access keys are sealed from now on: require (X-Wing only; the official SDKs cannot read them, \
            and keys of TYPE sealed with X25519 alone are refused), prefer, off (X25519 only), or default (the \
            SDK's: prefer, require for replicated datastores). --post-quantum on a command overrides it there.
            """
    )
    var mode: SavedPostQuantumMode?

    func validate() throws {
        if type != nil, mode == nil { throw ValidationError("--type needs --mode off|prefer|require|default") }
        if type == nil, mode != nil { throw ValidationError("--mode needs --type TYPE") }
        if let type, !(1...1_024).contains(type.utf8.count) { throw ValidationError("a type is 1 to 1,024 bytes") }
    }

    func run() async throws {
        if let type, let mode {
            var configuration = try await profile.configuration()
            configuration.postQuantum.modes[type] = mode.mode
            try await profile.save(configuration)
            print("\(type): \(configuration.postQuantum.mode(for: type).rawValue) (saved in the profile)")
            return
        }
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

/// `--mode` of `keys post-quantum`: a saved ``PostQuantumPolicy/Mode``, or `default` to remove the type's.
enum SavedPostQuantumMode: String, ExpressibleByArgument, CaseIterable {
    case off, prefer, require, `default`

    /// The mode saved for the type; nil to remove it.
    var mode: PostQuantumPolicy.Mode? {
        switch self {
        case .off: .off
        case .prefer: .prefer
        case .require: .require
        case .default: nil
        }
    }
}
