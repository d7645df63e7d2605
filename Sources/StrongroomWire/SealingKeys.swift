// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v2/storage/clients/sealing_keys`: the keys to seal to for up to ``maximumClients`` clients in one request —
/// what a rotation needs for every reader it keeps, instead of two lookups per reader.
public struct SealingKeysRequest: Codable, Sendable, Hashable {
    /// The most clients one request names.
    public static let maximumClients = 1_000

    /// The clients, as UUIDs (each at most once).
    public var clientIDs: [String]
    /// The size of the newest key log checkpoint the caller holds: every proof in the answer then carries the
    /// consistency proof from it (as `?keylog_since=` on the single lookups).
    public var keyLogSince: UInt64?

    enum CodingKeys: String, CodingKey {
        case clientIDs = "client_ids"
        case keyLogSince = "keylog_since"
    }

    /// Creates a request.
    public init(clientIDs: [String], keyLogSince: UInt64? = nil) {
        (self.clientIDs, self.keyLogSince) = (clientIDs, keyLogSince)
    }
}

/// The answer to ``SealingKeysRequest``: for each client the server knows, what `GET /v1/storage/clients/{id}` and
/// `GET /v2/storage/clients/{id}/hybrid_key` answer (the latter nil for a client without a post-quantum key),
/// each with its key log proof. Unknown clients are left out.
public struct SealingKeysResponse: Codable, Sendable, Hashable {
    /// One client's keys.
    public struct Entry: Codable, Sendable, Hashable {
        /// The client's public keys and key log proof.
        public var client: ClientInfo
        /// Its X-Wing key, signed and proven; nil when it published none.
        public var hybridKey: HybridKeyResponse?

        enum CodingKeys: String, CodingKey {
            case client
            case hybridKey = "hybrid_key"
        }

        /// Creates an entry.
        public init(client: ClientInfo, hybridKey: HybridKeyResponse?) {
            (self.client, self.hybridKey) = (client, hybridKey)
        }
    }

    /// The clients' keys, in the order asked.
    public var clients: [Entry]

    /// Creates an answer.
    public init(clients: [Entry]) { self.clients = clients }
}
