// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomWire

/// Sharing policies, authorizers and the four listings.
struct PolicyRoutes {
    let store: any ServerStore

    /// `PUT /v1/storage/policy/{user}/{writer}/{reader}/{type}`.
    ///
    /// The writer may set both flags; an active authorizer may set or clear `read` for other readers (share and
    /// revoke on behalf of the writer); anyone else gets 403.
    func put(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let userID = try context.uuidSegment("user")
        let writerID = try context.uuidSegment("writer")
        let readerID = try context.uuidSegment("reader")
        let type = try context.segment("type")
        let body = try await decodeBody(PolicyRequest.self, request, context)
        let allow = body.allow ?? []
        let deny = body.deny ?? []
        let readChange: Bool? =
            allow.contains { $0.read != nil } ? true : (deny.contains { $0.read != nil } ? false : nil)
        let authorizerChange: Bool? =
            allow.contains { $0.authorizer != nil } ? true : (deny.contains { $0.authorizer != nil } ? false : nil)
        guard readChange != nil || authorizerChange != nil else {
            throw ServerError.badRequest("a policy allows or denies read or authorizer")
        }
        let isWriter = caller == writerID && caller == userID
        if !isWriter {
            let grant = try await store.policy(userID: userID, writerID: writerID, readerID: caller, type: type)
            guard grant?.isAuthorizer == true, authorizerChange == nil else {
                throw ServerError.forbidden("only the writer, or its authorizer for read, may change this policy")
            }
        }
        guard try await store.client(id: readerID) != nil else { throw ServerError.notFound("no such reader") }
        var policy =
            try await store.policy(userID: userID, writerID: writerID, readerID: readerID, type: type)
            ?? StoredPolicy(
                userID: userID,
                writerID: writerID,
                readerID: readerID,
                type: type,
                canRead: false,
                isAuthorizer: false,
                authorizedBy: nil
            )
        if let readChange { policy.canRead = readChange }
        if let authorizerChange {
            policy.isAuthorizer = authorizerChange
            policy.authorizedBy = authorizerChange ? caller : nil
        }
        try await store.savePolicy(policy)
        return empty(.created)
    }

    /// `DELETE /v1/storage/policy/{user}/{writer}/{reader}`: clears the reader's authorizer grants for all types.
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let userID = try context.uuidSegment("user")
        let writerID = try context.uuidSegment("writer")
        let readerID = try context.uuidSegment("reader")
        guard caller == writerID && caller == userID else { throw ServerError.forbidden("only the writer may do this") }
        try await store.clearAuthorizer(userID: userID, writerID: writerID, readerID: readerID)
        return try json([String: String](), status: .ok)
    }

    func outgoing(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let policies = try await store.readPolicies(writerID: try context.caller())
        let names = try await store.clientNames(ids: Array(Set(policies.map(\.readerID))))
        return try json(
            policies.map { OutgoingShare(readerID: $0.readerID, readerName: names[$0.readerID], recordType: $0.type) }
        )
    }

    func incoming(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let policies = try await store.readPolicies(readerID: try context.caller())
        let names = try await store.clientNames(ids: Array(Set(policies.map(\.writerID))))
        return try json(
            policies.map { IncomingShare(writerID: $0.writerID, writerName: names[$0.writerID], recordType: $0.type) }
        )
    }

    func proxies(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try json(try await store.authorizerPolicies(writerID: try context.caller()).map(grant))
    }

    func granted(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try json(try await store.authorizerPolicies(authorizerID: try context.caller()).map(grant))
    }

    private func grant(_ policy: StoredPolicy) -> AuthorizerGrant {
        AuthorizerGrant(
            authorizerID: policy.readerID,
            writerID: policy.writerID,
            userID: policy.userID,
            recordType: policy.type,
            authorizedBy: policy.authorizedBy ?? policy.writerID
        )
    }
}
