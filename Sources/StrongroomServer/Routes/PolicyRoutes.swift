// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomWire

/// Sharing policies, authorizers and the four listings.
struct PolicyRoutes {
    let store: any SharingStore & ClientStore
    let authorization: Authorization
    let limits: ServerLimits
    let clock: ServerClock

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.outgoingPolicies), use: outgoing)
        routes.get(RouterPath(.incomingPolicies), use: incoming)
        routes.get(RouterPath(.proxies), use: proxies)
        routes.get(RouterPath(.granted), use: granted)
        routes.put(RouterPath(.policy), use: put)
        routes.delete(RouterPath(.readerPolicies), use: delete)
        return routes
    }

    /// `PUT /v1/storage/policy/{user}/{writer}/{reader}/{type}`.
    ///
    /// The writer may set both flags; an active authorizer may set or clear `read` for *other* readers (share and
    /// revoke on behalf of the writer), never for itself; anyone else gets 403.
    func put(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let slot = AccessKeySlot(
            writerID: try context.uuidSegment("writer"),
            userID: try context.uuidSegment("user"),
            readerID: try context.uuidSegment("reader"),
            type: try requireTypeSegment(try context.segment("type"), limits)
        )
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
        try await authorization.requirePolicyChange(slot, caller: caller, changesAuthorizer: authorizerChange != nil)
        guard try await store.client(text: slot.readerID) != nil else { throw ServerError.notFound("no such reader") }
        var policy = try await store.policy(for: slot) ?? StoredPolicy(slot: slot)
        if let readChange {
            policy.canRead = readChange
            policy.readGrantedBy = readChange ? caller : nil
        }
        if let authorizerChange {
            policy.isAuthorizer = authorizerChange
            policy.authorizedBy = authorizerChange ? caller : nil
        }
        try await store.savePolicy(policy, logAt: clock.wallTimestamp)
        // A grant makes the type's records readable: its long-polls look again.
        context.noteWrite(of: slot.type)
        return empty(.created)
    }

    /// `DELETE /v1/storage/policy/{user}/{writer}/{reader}`: clears the reader's authorizer grants for all types.
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let userID = try context.clientID("user")
        let writerID = try context.clientID("writer")
        let authorizerID = try context.clientID("reader")
        try authorization.requireWriter(writerID: writerID.description, userID: userID.description, caller: caller)
        try await store.clearAuthorizer(
            writerID: writerID,
            userID: userID,
            authorizerID: authorizerID,
            logAt: clock.wallTimestamp
        )
        return try json([String: String](), status: .ok)
    }

    /// `?limit=` (1 to ``ServerLimits/listingPageSize``, the default) and `?offset=` of a listing; 400 otherwise.
    private func page(_ request: Request) throws -> ListingPage {
        let parameters = request.uri.queryParameters
        let limit = try parameters.get("limit").map { text in
            guard let value = Int(text), (1...limits.listingPageSize).contains(value) else {
                throw ServerError.badRequest("limit must be 1 to \(limits.listingPageSize)")
            }
            return value
        }
        let offset = try parameters.get("offset").map { text in
            guard let value = Int(text), (0...Int(Int32.max)).contains(value) else {
                throw ServerError.badRequest("offset must be 0 to \(Int32.max)")
            }
            return value
        }
        return ListingPage(limit: limit ?? limits.listingPageSize, offset: offset ?? 0)
    }

    func outgoing(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let policies = try await store.readPolicies(writerID: try context.caller(), page: try page(request))
        let names = try await store.clientNames(ids: Array(Set(policies.map(\.readerID))))
        return try json(
            policies.map { OutgoingShare(readerID: $0.readerID, readerName: names[$0.readerID], recordType: $0.type) }
        )
    }

    func incoming(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let policies = try await store.readPolicies(readerID: try context.caller(), page: try page(request))
        let names = try await store.clientNames(ids: Array(Set(policies.map(\.writerID))))
        return try json(
            policies.map { IncomingShare(writerID: $0.writerID, writerName: names[$0.writerID], recordType: $0.type) }
        )
    }

    func proxies(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try json(try await store.authorizerPolicies(writerID: try context.caller(), page: try page(request)).map(grant))
    }

    func granted(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try json(
            try await store.authorizerPolicies(authorizerID: try context.caller(), page: try page(request)).map(grant)
        )
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
