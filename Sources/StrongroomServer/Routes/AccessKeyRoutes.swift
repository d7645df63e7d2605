// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomCrypto
import StrongroomWire

/// `/v1/storage/access_keys/{writer}/{user}/{reader}/{type}`.
struct AccessKeyRoutes {
    let store: any ServerStore
    let limits: ServerLimits

    struct Slot {
        var writerID, userID, readerID, type: String
    }

    private func slot(_ context: StrongroomRequestContext) throws -> Slot {
        Slot(
            writerID: try context.uuidSegment("writer"),
            userID: try context.uuidSegment("user"),
            readerID: try context.uuidSegment("reader"),
            type: try requireTypeSegment(try context.segment("type"), limits)
        )
    }

    /// Whether `caller` may store or delete EAKs of this slot: the writer itself, or an active authorizer for a
    /// slot of *another* reader (never the writer's own key, which would lose or replace its data key, nor the
    /// authorizer's own).
    private func mayManage(_ slot: Slot, caller: String) async throws -> Bool {
        if caller == slot.writerID && caller == slot.userID { return true }
        guard slot.readerID != slot.writerID, slot.readerID != slot.userID, slot.readerID != caller else {
            return false
        }
        let policy = try await store.policy(
            userID: slot.userID,
            writerID: slot.writerID,
            readerID: caller,
            type: slot.type
        )
        return policy?.isAuthorizer == true
    }

    /// GET: only the reader may fetch its own EAK; missing → 404.
    func get(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        guard caller == slot.readerID else { throw ServerError.forbidden("only the reader may fetch its access key") }
        guard
            let key = try await store.accessKey(
                writerID: slot.writerID,
                userID: slot.userID,
                readerID: slot.readerID,
                type: slot.type
            )
        else { throw ServerError.notFound("no access key") }
        return try json(try await response(for: key))
    }

    /// The wire form: the authorizer is whoever stored it; the signer is the record writer.
    func response(for key: StoredAccessKey) async throws -> AccessKeyResponse {
        let authorizer = try await store.client(id: key.authorizerID)
        let writer = key.writerID == key.authorizerID ? authorizer : try await store.client(id: key.writerID)
        return AccessKeyResponse(
            eak: key.eak,
            authorizerID: key.authorizerID,
            authorizerPublicKey: authorizer?.publicKey ?? PublicKeyObject(),
            signerID: writer?.signingKey == nil ? nil : key.writerID,
            signerSigningKey: writer?.signingKey
        )
    }

    /// PUT: the writer, or an authorizer for the slot; the reader must exist; an existing EAK → 409.
    func put(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        let body = try await decodeBody(AccessKeyPutRequest.self, request, context)
        guard (try? EncryptedAccessKey(wireFormat: body.eak)) != nil else {  // the reason is in the message
            throw ServerError.badRequest("eak is not ciphertext.nonce in base64url")
        }
        guard try await mayManage(slot, caller: caller) else {
            throw ServerError.forbidden("only the writer or its authorizer may store access keys")
        }
        guard try await store.client(id: slot.readerID) != nil else { throw ServerError.notFound("no such reader") }
        let inserted = try await store.insertAccessKey(
            StoredAccessKey(
                writerID: slot.writerID,
                userID: slot.userID,
                readerID: slot.readerID,
                type: slot.type,
                eak: body.eak,
                authorizerID: caller
            )
        )
        guard inserted else { throw ServerError.conflict("an access key already exists for this reader and type") }
        return empty(.created)
    }

    /// DELETE: the writer or an authorizer; idempotent (204 even when missing).
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = try slot(context)
        guard try await mayManage(slot, caller: caller) else {
            throw ServerError.forbidden("only the writer or its authorizer may delete access keys")
        }
        try await store.deleteAccessKey(
            writerID: slot.writerID,
            userID: slot.userID,
            readerID: slot.readerID,
            type: slot.type
        )
        return empty(.noContent)
    }
}
