// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomCrypto
import StrongroomWire

/// `/v1/storage/access_keys/{writer}/{user}/{reader}/{type}`.
struct AccessKeyRoutes {
    let store: any SharingStore & ClientStore
    let authorization: Authorization
    let results: RecordResults
    let limits: ServerLimits
    let clock: ServerClock

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.accessKey), use: get)
        routes.put(RouterPath(.accessKey), use: put)
        routes.delete(RouterPath(.accessKey), use: delete)
        return routes
    }

    private func slot(_ context: StrongroomRequestContext) throws -> AccessKeySlot {
        AccessKeySlot(
            writerID: try context.uuidSegment("writer"),
            userID: try context.uuidSegment("user"),
            readerID: try context.uuidSegment("reader"),
            type: try requireTypeSegment(try context.segment("type"), limits)
        )
    }

    /// GET: only the reader may fetch its own EAK; missing → 404.
    func get(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        try authorization.requireReader(of: slot, caller: caller)
        guard let key = try await store.accessKey(in: slot) else { throw ServerError.notFound("no access key") }
        // The generation this EAK belongs to, for the fence on the writer's writes (read before the answer: a
        // rotation in between makes it look older, never newer, and the fence then asks for the key again).
        let generation = try await KeyGenerationFence(store: store).header(for: slot.scope)
        return try json(try await results.response(for: key), headers: generation)
    }

    /// PUT: the writer, or an authorizer for another reader's slot; the reader must exist. A reader's existing EAK
    /// is replaced (sharing twice succeeds); the writer's own existing EAK → 409.
    func put(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        let body = try await decodeBody(AccessKeyPutRequest.self, request, context)
        try Self.requireEAKs(body.eak, hybrid: body.hybridEAK)
        let generation = try KeyGenerationFence.sent(in: request)
        try await authorization.requireKeyManager(of: slot, caller: caller, "store")
        guard try await store.client(text: slot.readerID) != nil else { throw ServerError.notFound("no such reader") }
        let key = StoredAccessKey(slot: slot, eak: body.eak, hybridEAK: body.hybridEAK, authorizerID: caller)
        // Sharing is idempotent: a reader's slot shared again takes the new EAK (the caller may delete it anyway).
        // The writer's own slot keeps 409, so a writer never overwrites the data key its records are under.
        guard slot.readerID != slot.writerID else {
            guard try await store.insertAccessKey(key) else {
                throw ServerError.conflict("the writer's own access key for this type exists already")
            }
            return try await created(generationOf: slot.scope)
        }
        // Fenced (a Strongroom writer names its key's generation): stored only while the type is at it, under the
        // lock a rotation takes, so a new reader never receives a key a rotation has just replaced.
        if let current = try await store.replaceAccessKey(key, logAt: clock.wallTimestamp, fence: generation) {
            throw ServerError.staleKeyGeneration(sent: generation ?? current, current: current)
        }
        return try await created(generationOf: slot.scope)
    }

    /// 201 with the type's current generation named.
    private func created(generationOf scope: AccessKeyScope) async throws -> Response {
        var response = empty(.created)
        response.headers.append(contentsOf: try await KeyGenerationFence(store: store).header(for: scope))
        return response
    }

    /// DELETE: the writer, or an authorizer for another reader's slot; idempotent (204 even when missing).
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        try await authorization.requireKeyManager(of: slot, caller: caller, "delete")
        try await store.deleteAccessKey(in: slot, logAt: clock.wallTimestamp)
        return empty(.noContent)
    }

    /// 400 unless the key is sealed at least once: `eak` an EAK's wire form or empty, `hybrid` absent or a
    /// post-quantum wrap's wire form (its signature is for the reader to check: the server cannot tell the context),
    /// and not both missing.
    static func requireEAKs(_ eak: String, hybrid: String?, prefix: String = "") throws {
        if let hybrid {
            guard hybrid.utf8.count == AccessKeyPutRequest.hybridEAKCharacters,
                (try? HybridAccessKeyWrap(wireFormat: hybrid)) != nil
            else {
                throw ServerError.badRequest(
                    "\(prefix)hybrid_eak is not a post-quantum wrap (\(AccessKeyPutRequest.hybridEAKCharacters) base64url characters)"
                )
            }
            if eak.isEmpty { return }
        }
        try requireEAK(eak, named: prefix + "eak")
    }

    /// 400 unless `eak` is an EAK's wire form (`ciphertext.nonce` in base64url): checked before anything is stored.
    static func requireEAK(_ eak: String, named field: String = "eak") throws {
        guard (try? EncryptedAccessKey(wireFormat: eak)) != nil else {  // the reason is in the message
            throw ServerError.badRequest("\(field) is not ciphertext.nonce in base64url")
        }
    }
}
