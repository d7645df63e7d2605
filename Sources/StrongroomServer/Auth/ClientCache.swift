// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire
import Synchronization

/// The client rows authentication reads on every request, kept for a short time so that a request costs no
/// database query for its caller (#17: half the read path's queries were this lookup).
///
/// A client row never changes after registration (Strongroom has no client update), so a cached row is the stored
/// row; the TTL bounds how long a row changed or removed by an operator directly in the database keeps
/// authenticating, and a missing client is never cached (a registration elsewhere is seen at once). The cache holds at
/// most `capacity` rows and starts again empty when it would grow past them.
final class ClientCache: Sendable {
    private struct Entry {
        var client: StoredClient
        var fetched: ContinuousClock.Instant
    }

    private let store: any ClientStore
    private let ttl: Duration
    private let capacity: Int
    private let entries = Mutex<[ClientID: Entry]>([:])

    init(store: any ClientStore, ttl: Duration = .seconds(10), capacity: Int = 50_000) {
        self.store = store
        self.ttl = ttl
        self.capacity = capacity
    }

    /// The stored client `id`, or nil when there is none.
    func client(id: ClientID) async throws -> StoredClient? {
        let now = ContinuousClock.now
        if let cached = entries.withLock({ $0[id] }), now - cached.fetched < ttl { return cached.client }
        guard let client = try await store.client(id: id) else {
            entries.withLock { _ = $0.removeValue(forKey: id) }
            return nil
        }
        entries.withLock { entries in
            if entries.count >= capacity, entries[id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[id] = Entry(client: client, fetched: now)
        }
        return client
    }

    /// The stored client named by `text` (a client ID in any case), or nil when it names none.
    /// Drops a client's entry (its keys changed): this instance reads it again at its next request; others within
    /// their cache lifetime.
    func forget(_ text: String) {
        guard let id = ClientID(text) else { return }
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }

    func client(text: String) async throws -> StoredClient? {
        guard let id = ClientID(text) else { return nil }
        return try await client(id: id)
    }
}
