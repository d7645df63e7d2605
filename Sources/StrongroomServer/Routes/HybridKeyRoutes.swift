// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// A client's post-quantum (X-Wing) public key (docs/design/PostQuantum.md): published by the client, signed by its
/// Ed25519 key and logged (a `hybridKeyPublished` leaf committing to the key's SHA-256); served to anyone
/// authenticated with the leaf's proof.
struct HybridKeyRoutes {
    let store: any ClientStore & KeyLogStore
    let keyLog: ServerKeyLog
    let clock: ServerClock

    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.put(RouterPath(.clientHybridKey), use: publish)
        routes.get(RouterPath(.clientHybridKey), use: get)
        routes.post(RouterPath(.sealingKeys), use: sealingKeys)
        return routes
    }

    /// `PUT /v2/storage/clients/{id}/hybrid_key`: the caller publishes its own key; the same key again is a no-op.
    func publish(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        guard try context.clientID("id").description == caller else {
            throw ServerError.forbidden("a client publishes only its own key")
        }
        let body = try await decodeBody(HybridKeyRequest.self, request, context)
        guard body.publicKey.utf8.count <= HybridKeyRequest.maximumKeyCharacters,
            let bytes = try? Base64URL.decode(body.publicKey),
            let key = try? HybridPublicKey(rawRepresentation: bytes)  // the reason is in the message
        else { throw ServerError.badRequest("public_key is a 1,216-byte X-Wing public key in base64url") }
        guard body.signature.utf8.count <= 128, let signature = try? Base64URL.decode(body.signature),
            signature.count == 64
        else { throw ServerError.badRequest("signature is a 64-byte Ed25519 signature in base64url") }
        guard let client = try await store.client(text: caller), let id = UUID(uuidString: caller) else {
            throw ServerError.unauthorized()
        }
        guard let signing = client.signingKey?.ed25519,
            let signingKey = try? SigningPublicKey(base64URLEncoded: signing)
        else { throw ServerError.badRequest("only a client with an Ed25519 key can publish a post-quantum key") }
        guard signingKey.isValidSignature(signature, for: HybridKeyLeaf.signedBytes(clientID: id, key: key)) else {
            throw ServerError.badRequest("the post-quantum key is not signed by this client's signing key")
        }
        let text = Base64URL.encode(key.rawRepresentation)
        if client.hybridKey == text, let leaf = try await store.newestHybridKeyLeaf(clientID: caller) {
            return try json(KeyLogLeafResponse(index: leaf.index))
        }
        let time = clock.wallTimestamp.microseconds
        guard time >= 0 else { throw ServerError.storage("the clock is before 1970") }
        let leaf = PendingKeyLogLeaf(
            entry: try HybridKeyLeaf.entry(clientID: id, key: key, time: UInt64(time)),
            signatures: [UInt8](signature)
        )
        let index = try await store.publishHybridKey(clientID: caller, key: text, leaf: leaf)
        return try json(KeyLogLeafResponse(index: index))
    }

    /// `GET /v2/storage/clients/{id}/hybrid_key[?keylog_since=N]`: 404 for a client without one.
    func get(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        let clientID = try context.clientID("id").description
        let since = try request.uri.queryParameters.get("keylog_since").map { _ in
            try KeyLogRoutes.number("keylog_since", request)
        }
        guard let client = try await store.client(text: clientID),
            let answer = try await hybridKey(of: client, since: since)
        else { throw ServerError.notFound("this client has published no post-quantum key") }
        return try json(answer)
    }

    /// `POST /v2/storage/clients/sealing_keys`: for up to 1,000 clients, what the client lookup and the post-quantum
    /// key lookup answer, each proven against one checkpoint; unknown clients left out.
    func sealingKeys(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        let body = try await decodeBody(SealingKeysRequest.self, request, context)
        guard (1...SealingKeysRequest.maximumClients).contains(body.clientIDs.count) else {
            throw ServerError.badRequest("client_ids names 1 to \(SealingKeysRequest.maximumClients) clients")
        }
        if let since = body.keyLogSince, since > MerkleProof.maximumTreeSize {
            throw ServerError.badRequest("keylog_since is a number from 0 to \(MerkleProof.maximumTreeSize)")
        }
        var ids: [ClientID] = []
        var seen = Set<ClientID>()
        for text in body.clientIDs {
            guard let id = ClientID(text) else { throw ServerError.badRequest("client_ids holds UUIDs") }
            guard seen.insert(id).inserted else { throw ServerError.badRequest("client_ids names each client once") }
            ids.append(id)
        }
        let now = UInt64(max(0, clock.wallTimestamp.microseconds))
        var entries: [SealingKeysResponse.Entry] = []
        for id in ids {
            guard let client = try await store.client(id: id) else { continue }
            // Exactly what GET /v1/storage/clients/{id} answers (a tampering test server included).
            let info = try await keyLog.servedInfo(of: client, in: store, since: body.keyLogSince, now: now)
            entries.append(.init(client: info, hybridKey: try await hybridKey(of: client, since: body.keyLogSince)))
        }
        return try json(SealingKeysResponse(clients: entries))
    }

    /// A client's post-quantum key as served, with its leaf's proof; nil when it published none.
    private func hybridKey(of client: StoredClient, since: UInt64?) async throws -> HybridKeyResponse? {
        guard let key = client.hybridKey,
            let leaf = try await store.newestHybridKeyLeaf(clientID: client.clientID), let signature = leaf.signatures,
            signature.count == 64
        else { return nil }
        return HybridKeyResponse(
            clientID: client.clientID,
            publicKey: key,
            signature: Base64URL.encode(signature),
            keyLog: try await keyLog.inclusion(of: leaf, since: since)
        )
    }
}
