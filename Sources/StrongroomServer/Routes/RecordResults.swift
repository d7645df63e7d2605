// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomWire

/// How records and access keys go out: search hits with their ciphertext within the response budget, and access
/// keys with their authorizer's and signer's public keys. Shared by the record, file and search routes.
struct RecordResults: Sendable {
    let store: any RecordStore & SharingStore & ClientStore
    let limits: ServerLimits

    /// The longest prefix of `page` whose ciphertext fits the response budget (at least one record), read in
    /// full. Records deleted since the metadata pass are left out.
    func withData(_ page: [StoredRecord]) async throws -> [StoredRecord] {
        var kept = 0
        var bytes = 0
        for record in page {
            bytes += record.dataSize
            if kept > 0 && bytes > limits.searchResponseDataBytes { break }
            kept += 1
        }
        var full: [String: StoredRecord] = [:]
        var start = 0
        while start < kept {
            let end = min(kept, start + 100)
            for record in try await store.records(ids: page[start..<end].compactMap { RecordID($0.recordID) }) {
                full[record.recordID] = record
            }
            start = end
        }
        return page.prefix(kept).compactMap { full[$0.recordID] }
    }

    /// Search hits: ciphertext when asked for (`{}` for files), and the caller's EAK inlined once per
    /// writer, user and type (the Swift and Java SDKs need it inline).
    func searchResults(for records: [StoredRecord], caller: String, includeData: Bool) async throws -> [SearchResult] {
        var keys: [String: AccessKeyResponse?] = [:]
        var clients = ClientLookups()
        var results: [SearchResult] = []
        results.reserveCapacity(records.count)
        for record in records {
            var accessKey: AccessKeyResponse?
            if includeData {
                let slot = "\(record.writerID)/\(record.userID)/\(record.type)"
                if let cached = keys[slot] {
                    accessKey = cached
                } else {
                    if let stored = try await store.accessKey(in: record.slot(reader: caller)) {
                        // The post-quantum wrap only where there is no classical EAK: 1,643 characters on every
                        // hit, which a client holding the classical EAK inline never needs.
                        accessKey = try await response(
                            for: stored,
                            withWrap: stored.eak.isEmpty,
                            clients: &clients
                        )
                    }
                    keys[slot] = accessKey
                }
            }
            results.append(
                SearchResult(
                    meta: record.meta,
                    recordData: includeData ? record.data : nil,
                    accessKey: accessKey,
                    recordSignature: includeData ? record.recordSignature : nil
                )
            )
        }
        return results
    }

    /// The wire form (`withWrap: false` leaves the post-quantum wrap out): the authorizer is whoever stored it, with
    /// the key that sealed it (its current one unless it replaced its keys since); the signer is the record writer.
    /// `clients` keeps the clients looked up, for an answer holding many keys.
    func response(
        for key: StoredAccessKey,
        withWrap: Bool = true,
        clients: inout ClientLookups
    ) async throws -> AccessKeyResponse {
        let authorizer = try await clients.client(key.authorizerID, in: store)
        let writer = try await clients.client(key.writerID, in: store)
        return AccessKeyResponse(
            eak: key.eak,
            hybridEAK: withWrap ? key.hybridEAK : nil,
            authorizerID: key.authorizerID,
            authorizerPublicKey: key.authorizerKey ?? authorizer?.publicKey ?? PublicKeyObject(),
            signerID: writer?.signingKey == nil ? nil : key.writerID,
            signerSigningKey: writer?.signingKey
        )
    }

    /// ``response(for:withWrap:clients:)`` for one key.
    func response(for key: StoredAccessKey) async throws -> AccessKeyResponse {
        var clients = ClientLookups()
        return try await response(for: key, clients: &clients)
    }
}

/// Clients looked up once each while one answer is made (a page of access keys names few authorizers and writers).
struct ClientLookups {
    private var found: [String: StoredClient?] = [:]

    /// The client `id`, from the store the first time.
    mutating func client(_ id: String, in store: any ClientStore) async throws -> StoredClient? {
        if let known = found[id] { return known }
        let client = try await store.client(text: id)
        found[id] = client
        return client
    }
}
