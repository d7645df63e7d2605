// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomCrypto
import StrongroomWire

/// `/v1/storage/access_keys/{writer}/{user}/{reader}/{type}`.
struct AccessKeyRoutes {
    let store: any ServerStore
    let authorization: Authorization
    let results: RecordResults
    let limits: ServerLimits

    /// Its paths, under the authenticated `/v1/storage` group.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get("access_keys/:writer/:user/:reader/:type", use: get)
        routes.put("access_keys/:writer/:user/:reader/:type", use: put)
        routes.delete("access_keys/:writer/:user/:reader/:type", use: delete)
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
        return try json(try await results.response(for: key))
    }

    /// PUT: the writer, or an authorizer for another reader's slot; the reader must exist; an existing EAK → 409.
    func put(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        let body = try await decodeBody(AccessKeyPutRequest.self, request, context)
        guard (try? EncryptedAccessKey(wireFormat: body.eak)) != nil else {  // the reason is in the message
            throw ServerError.badRequest("eak is not ciphertext.nonce in base64url")
        }
        try await authorization.requireKeyManager(of: slot, caller: caller, "store")
        guard try await store.client(text: slot.readerID) != nil else { throw ServerError.notFound("no such reader") }
        let inserted = try await store.insertAccessKey(StoredAccessKey(slot: slot, eak: body.eak, authorizerID: caller))
        guard inserted else { throw ServerError.conflict("an access key already exists for this reader and type") }
        return empty(.created)
    }

    /// DELETE: the writer, or an authorizer for another reader's slot; idempotent (204 even when missing).
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        try await authorization.requireKeyManager(of: slot, caller: caller, "delete")
        try await store.deleteAccessKey(in: slot)
        return empty(.noContent)
    }
}
