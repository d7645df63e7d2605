// Strongroom — SPDX-License-Identifier: Apache-2.0

/// How the access keys of each record type are sealed to their readers: with X25519 alone, or also (or only) with
/// the post-quantum X-Wing wrap (the article "Post-quantum sharing").
///
/// The writer — or the authorizer sharing on its behalf — applies its own policy whenever it seals a key: when a type
/// is first keyed, shared, or rotated. A reader reads the post-quantum wrap whenever one is there and its
/// configuration has an X-Wing key.
///
/// - ``Mode/off``: the classical EAK only (`crypto_box`), as before post-quantum sharing.
/// - ``Mode/prefer`` (the default): both wraps for every reader that published an X-Wing key, the classical one alone
///   for a reader that did not. The official SDKs keep reading through the classical EAK — which a future quantum
///   computer could open from a copy of the server's database: `prefer` protects the key only where the classical
///   wrap is gone.
/// - ``Mode/require``: the post-quantum wrap only; no classical EAK exists, so the official SDKs cannot read the type
///   and a reader without an X-Wing key cannot be given it (``ClientError/Code/postQuantumKeyMissing``).
///
/// Replicated datastore types (`sr1.`) take ``replicatedMode``, ``Mode/require`` by default: their revision records
/// are ordinary E3DB records an official SDK could read with the key, but nothing of Strongroom's replication
/// needs it to, so they keep no classical EAK unless ``modes`` or ``replicatedMode`` says otherwise. A reader refuses a key sealed with X25519 alone only for the types ``modes`` sets to ``Mode/require``:
/// keys sealed before the policy existed stay readable until the type's next rotation re-seals them.
public struct PostQuantumPolicy: Sendable, Hashable {
    /// How one type's access keys are sealed.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// X25519 (`crypto_box`) only.
        case off
        /// Both wraps where the reader has an X-Wing key; X25519 alone otherwise.
        case prefer
        /// The X-Wing wrap only.
        case require
    }

    /// The mode of every type ``modes`` does not name (replicated `sr1.` types aside).
    public var defaultMode: Mode
    /// The mode of the replicated datastore types (`sr1.`) ``modes`` does not name.
    public var replicatedMode: Mode
    /// Modes of particular types: the only part a saved profile keeps (`"post_quantum": {"types": …}` in its
    /// `e3db.json`, at most 10,000 types; `strongroom keys post-quantum --type TYPE --mode MODE` sets one).
    public var modes: [String: Mode]

    /// A policy: `prefer` by default, `require` for replicated datastores.
    public init(defaultMode: Mode = .prefer, replicatedMode: Mode = .require, modes: [String: Mode] = [:]) {
        self.defaultMode = defaultMode
        self.replicatedMode = replicatedMode
        self.modes = modes
    }

    /// The mode this client seals `type`'s keys with.
    public func mode(for type: String) -> Mode {
        if let mode = modes[type] { return mode }
        return type.hasPrefix("sr1.") ? replicatedMode : defaultMode
    }

    /// Whether a key of `type` sealed with X25519 alone is refused on reading: only where ``modes`` says `require`.
    func refusesClassicalOnly(_ type: String) -> Bool { modes[type] == .require }
}
