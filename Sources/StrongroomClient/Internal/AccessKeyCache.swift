// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCrypto

/// Opened access keys by `(writer, user, type)`, so that each is fetched and opened once per client.
///
/// Reads are still authorised by the server every time: a revoked reader keeps a cached key but no longer gets
/// ciphertext to use it on.
actor AccessKeyCache {
    /// Whose key: a writer's records of one type for one user.
    struct Slot: Hashable, Sendable {
        var writerID: String
        var userID: String
        var type: String
    }

    /// A cached key.
    struct Entry: Sendable {
        /// The key.
        var key: AccessKey
        /// The generation the server named when it answered it (nil: not named, as by servers that do not rotate).
        var generation: Int?
        /// When the key log last showed no newer generation of it (nil: never checked).
        var checked: ContinuousClock.Instant?
    }

    private var keys: [Slot: Entry] = [:]
    /// The older generations reached from a key (``Client/olderKeys(below:writerID:userID:type:)``), one chain per
    /// slot, with the key it starts below.
    private var chains: [Slot: (below: AccessKey, chain: OlderKeys)] = [:]

    func key(writerID: String, userID: String, type: String) -> AccessKey? {
        keys[Slot(writerID: writerID, userID: userID, type: type)]?.key
    }

    /// The cached entry of `(writer, user, type)`.
    func entry(writerID: String, userID: String, type: String) -> Entry? {
        keys[Slot(writerID: writerID, userID: userID, type: type)]
    }

    func store(
        _ key: AccessKey,
        generation: Int? = nil,
        checked: ContinuousClock.Instant? = nil,
        writerID: String,
        userID: String,
        type: String
    ) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = Entry(
            key: key,
            generation: generation,
            checked: checked
        )
    }

    /// Notes that the key log showed no newer generation of the cached key at `instant`.
    func markChecked(_ instant: ContinuousClock.Instant, writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)]?.checked = instant
    }

    /// The cached chain below `key`, if the one cached for the slot starts there.
    func olderKeys(
        below key: AccessKey,
        writerID: String,
        userID: String,
        type: String
    ) -> OlderKeys? {
        guard let cached = chains[Slot(writerID: writerID, userID: userID, type: type)], cached.below == key else {
            return nil
        }
        return cached.chain
    }

    func storeOlderKeys(
        _ chain: OlderKeys,
        below key: AccessKey,
        writerID: String,
        userID: String,
        type: String
    ) {
        chains[Slot(writerID: writerID, userID: userID, type: type)] = (key, chain)
    }

    func remove(writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = nil
    }

    /// Every cached key with its slot (for the key log monitor).
    func all() -> [(slot: Slot, key: AccessKey)] {
        keys.map { ($0.key, $0.value.key) }
    }
}
