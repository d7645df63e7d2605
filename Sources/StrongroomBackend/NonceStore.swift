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

/// Nonces in memory, for one instance: bounded in count, oldest forgotten first once past the window.
public actor MemoryNonceStore: NonceStore {
    private var seen: [String: Int64] = [:]
    /// Keys in the order they were added, with their timestamps, for pruning.
    private var order: [(key: String, timestamp: Int64)] = []
    private var start = 0
    /// The most nonces kept; when full of nonces still inside the window, new signed requests are refused.
    public let capacity: Int

    /// A store keeping up to `capacity` nonces (a million by default: about 100 MB at worst).
    public init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    public func remember(publicKey: String, nonce: String, timestamp: Int64, forgettingBefore: Int64) throws -> Bool {
        // Forget what can no longer be replayed (timestamps before the window), in the order it arrived.
        while start < order.count, order[start].timestamp < forgettingBefore {
            if seen[order[start].key] == order[start].timestamp { seen[order[start].key] = nil }
            start += 1
        }
        if start > 1024, start * 2 > order.count {
            order.removeFirst(start)
            start = 0
        }
        let key = publicKey + " " + nonce
        guard seen[key] == nil else { return false }
        guard seen.count < capacity else { throw NonceStoreFull() }
        seen[key] = timestamp
        order.append((key, timestamp))
        return true
    }

    /// The store holds ``capacity`` nonces still inside the window.
    public struct NonceStoreFull: Error, CustomStringConvertible {
        public var description: String { "the nonce store is full; signed requests are refused until nonces age out" }
    }
}
