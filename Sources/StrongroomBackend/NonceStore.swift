// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Remembers the nonces of accepted signed requests so that a replay within the time window is refused.
///
/// A nonce needs keeping only while its timestamp is inside the window: an older request fails the time check
/// first. Share one store between instances behind a load balancer (a database-backed one), or a replay sent to
/// another instance succeeds.
public protocol NonceStore: Sendable {
    /// Records `nonce` for `publicKey` (base64url) signed at `timestamp` (Unix seconds); false when it was already
    /// recorded (a replay). Entries older than `forgettingBefore` (Unix seconds) may be dropped.
    func remember(publicKey: String, nonce: String, timestamp: Int64, forgettingBefore: Int64) async throws -> Bool
}

/// Nonces in memory, for one instance: bounded in count, in all and per signer, and forgotten by timestamp once
/// past the window.
///
/// Each signer may hold at most ``perSignerCapacity`` live nonces, so one signer's requests (an accepted key that
/// leaked, a client in a loop) can fill only its own share and never refuse everyone else's. Nonces are kept in
/// buckets by their timestamp and forgotten a whole second at a time, so a nonce stamped in the future holds back
/// nothing but itself.
public actor MemoryNonceStore: NonceStore {
    private var seen: [String: Int64] = [:]
    /// The keys of each timestamp's nonces, for forgetting a whole second at once.
    private var buckets: [Int64: [String]] = [:]
    /// The oldest timestamp that has a bucket.
    private var oldest: Int64?
    /// Live nonces per signer.
    private var perSigner: [String: Int] = [:]
    /// The most nonces kept; when full of nonces still inside the window, new signed requests are refused.
    public let capacity: Int
    /// The most nonces one signer keeps; past it, that signer's new requests are refused (others' are not).
    public let perSignerCapacity: Int

    /// A store keeping up to `capacity` nonces (a million by default: about 100 MB at worst), at most
    /// `perSignerCapacity` of one signer (a tenth of `capacity` by default: for the default 5-minute window, a signer
    /// sending about 160 requests a second all the time).
    public init(capacity: Int = 1_000_000, perSignerCapacity: Int? = nil) {
        self.capacity = max(1, capacity)
        self.perSignerCapacity = max(1, min(self.capacity, perSignerCapacity ?? self.capacity / 10))
    }

    public func remember(publicKey: String, nonce: String, timestamp: Int64, forgettingBefore: Int64) throws -> Bool {
        forget(before: forgettingBefore)
        let key = publicKey + " " + nonce
        guard seen[key] == nil else { return false }
        guard perSigner[publicKey, default: 0] < perSignerCapacity else { throw NonceStoreFull(signer: true) }
        guard seen.count < capacity else { throw NonceStoreFull(signer: false) }
        seen[key] = timestamp
        buckets[timestamp, default: []].append(key)
        perSigner[publicKey, default: 0] += 1
        oldest = min(oldest ?? timestamp, timestamp)
        return true
    }

    /// Forgets every nonce stamped before `time`: they can no longer be replayed (the time check refuses them).
    private func forget(before time: Int64) {
        while let first = oldest, first < time {
            for key in buckets.removeValue(forKey: first) ?? [] {
                seen[key] = nil
                let signer = String(key.prefix { $0 != " " })
                let left = perSigner[signer, default: 1] - 1
                perSigner[signer] = left > 0 ? left : nil
            }
            oldest = buckets.keys.min()
        }
    }

    /// The store holds ``capacity`` nonces still inside the window, or the signer its ``perSignerCapacity``.
    public struct NonceStoreFull: Error, CustomStringConvertible {
        /// Whether it is the signer's share that is full (the others' requests are still taken).
        public var signer: Bool

        public var description: String {
            signer
                ? "this signer holds as many nonces as one signer may; its signed requests are refused until they age out"
                : "the nonce store is full; signed requests are refused until nonces age out"
        }
    }
}
