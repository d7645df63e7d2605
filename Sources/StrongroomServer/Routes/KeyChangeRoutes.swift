// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// A client replacing its keys (docs/design/KeyLog.md, "Client key changes"): the EAKs it holds as a reader, then
/// one request that re-wraps them, takes the new keys (and optionally a new API secret) and logs a `keysChanged`
/// leaf, signed by the old and the new signing key.
struct KeyChangeRoutes {
    let store: any ClientStore & KeyLogStore
    let results: RecordResults
    let clients: ClientCache
    let limits: ServerLimits
    let clock: ServerClock

    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.heldAccessKeys), use: held)
        routes.post(RouterPath(.clientKeys), use: change)
        return routes
    }

    /// `GET /v2/storage/access_keys/held?start=`: the caller's EAKs as a reader, a page at a time.
    func held(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let start =
            try request.uri.queryParameters.get("start").map { _ in try KeyLogRoutes.number("start", request) } ?? 0
        guard start <= UInt64(KeyChangeRequest.maximumRewrapped) else {
            throw ServerError.badRequest("start is at most \(KeyChangeRequest.maximumRewrapped)")
        }
        let page = try await store.heldAccessKeys(
            reader: caller,
            start: Int(start),
            limit: HeldAccessKeysResponse.maximumPage
        )
        var keys: [HeldAccessKey] = []
        var clients = ClientLookups()
        for (key, generation) in page {
            keys.append(
                HeldAccessKey(
                    writerID: key.writerID,
                    userID: key.userID,
                    type: key.type,
                    accessKey: try await results.response(for: key, clients: &clients),
                    generation: generation
                )
            )
        }
        return try json(HeldAccessKeysResponse(keys: keys))
    }

    /// `POST /v2/storage/clients/{id}/keys`: the caller replaces its own keys. A repeat of the change that took
    /// effect answers as it did (a client whose answer was lost retries); any other change while keys moved: 409.
    func change(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        guard try context.clientID("id").description == caller else {
            throw ServerError.forbidden("a client replaces only its own keys")
        }
        let body = try await decodeBody(KeyChangeRequest.self, request, context)
        guard let client = try await store.client(text: caller) else { throw ServerError.unauthorized() }
        let keys = try Self.newKeys(body)
        let signatures = try Self.signatures(body)
        let history = try await store.keyLeaves(clientID: caller, limit: KeyLogRoutes.maximumLeaves)
        guard let newest = history.last, history.count < KeyLogRoutes.maximumLeaves else {
            throw ServerError.badRequest("this client's keys are not in the key log: they cannot be changed")
        }
        if client.publicKey == body.publicKey, client.signingKey == body.signingKey {
            // Already taken: the same change again (its answer lost) gets the same answer.
            guard newest.signatures == signatures else {
                throw ServerError.conflict("this client already holds these keys")
            }
            return try json(KeyLogLeafResponse(index: newest.index))
        }
        guard let oldSigning = client.signingKey, let old = try Self.keys(client.publicKey, oldSigning) else {
            throw ServerError.badRequest("only a client with an X25519 and an Ed25519 key can change its keys")
        }
        guard let id = UUID(uuidString: caller) else { throw ServerError.unauthorized() }
        do {
            try KeyChangeStatement(clientID: id, old: old, new: keys).verify(
                old: signatures[..<64],
                new: signatures[64...]
            )
        } catch {
            throw ServerError.badRequest("the key change is not signed by both the current and the new signing key")
        }
        for leaf in history {
            let entry = try? KeyLogEntry(decoding: leaf.entry)
            guard entry?.keys?.encryption != keys.encryption, entry?.keys?.signing != keys.signing else {
                throw ServerError.badRequest("a client never takes a key it held before")
            }
        }
        let secretHash = try body.apiSecret.map { secret in
            guard (32...256).contains(secret.utf8.count), !secret.utf8.contains(0) else {
                throw ServerError.badRequest("api_secret is 32 to 256 bytes")
            }
            return AccountRoutes.hash(secret: secret)
        }
        guard body.rewrapped.count <= KeyChangeRequest.maximumRewrapped else {
            throw ServerError.tooLarge("a key change re-wraps at most \(KeyChangeRequest.maximumRewrapped) keys")
        }
        for key in body.rewrapped {
            guard UUID(uuidString: key.writerID)?.uuidString.lowercased() == key.writerID,
                UUID(uuidString: key.userID)?.uuidString.lowercased() == key.userID, key.generation >= 1
            else { throw ServerError.badRequest("a re-wrapped key names its writer, user and generation") }
            _ = try requireTypeSegment(key.type, limits)
            try AccessKeyRoutes.requireEAKs(key.eak, hybrid: key.hybridEAK, prefix: "rewrapped.")
        }
        let outcome = try await store.changeKeys(
            KeyChange(
                clientID: caller,
                old: (client.publicKey, oldSigning),
                new: (body.publicKey, body.signingKey),
                previousLeaf: newest.index,
                entryKeys: KeyLogEntry.Keys(encryption: keys.encryption, signing: keys.signing, previous: newest.index),
                signatures: signatures,
                apiSecretHash: secretHash,
                rewrapped: body.rewrapped,
                time: clock.wallTimestamp
            )
        )
        clients.forget(caller)
        switch outcome {
        case .changed(let leaf):
            context.logger.notice("client keys changed", metadata: ["client": .string(caller), "leaf": "\(leaf)"])
            return try json(KeyLogLeafResponse(index: leaf))
        case .keysMoved:
            throw ServerError.conflict("this client's keys changed meanwhile")
        case .heldKeysDiffer:
            throw ServerError.conflict(
                "the access keys this client holds changed meanwhile (shared, revoked or rotated): list them again"
            )
        }
    }

    /// The new keys: a usable X25519 key and an Ed25519 key, no NIST keys.
    private static func newKeys(
        _ body: KeyChangeRequest
    ) throws -> (encryption: EncryptionPublicKey, signing: SigningPublicKey) {
        try AccountRoutes.validate(body.publicKey, body.signingKey)
        guard body.publicKey.p384 == nil, body.signingKey.p384 == nil,
            let keys = try keys(body.publicKey, body.signingKey)
        else { throw ServerError.badRequest("a key change names an X25519 and an Ed25519 key") }
        return keys
    }

    private static func keys(
        _ publicKey: PublicKeyObject,
        _ signingKey: SigningKeyObject
    ) throws -> (encryption: EncryptionPublicKey, signing: SigningPublicKey)? {
        guard let encryption = publicKey.curve25519, let signing = signingKey.ed25519,
            let encryptionKey = try? EncryptionPublicKey(base64URLEncoded: encryption),  // nil: the caller says why
            let signingKey = try? SigningPublicKey(base64URLEncoded: signing)
        else { return nil }
        return (encryptionKey, signingKey)
    }

    /// The two signatures, old ‖ new (128 bytes).
    private static func signatures(_ body: KeyChangeRequest) throws -> [UInt8] {
        guard body.oldSignature.utf8.count <= 128, body.newSignature.utf8.count <= 128,
            let old = try? Base64URL.decode(body.oldSignature), let new = try? Base64URL.decode(body.newSignature),
            old.count == 64, new.count == 64
        else { throw ServerError.badRequest("old_signature and new_signature are 64-byte Ed25519 signatures") }
        return [UInt8](old) + [UInt8](new)
    }
}
