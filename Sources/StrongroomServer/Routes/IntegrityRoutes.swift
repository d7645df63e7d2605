// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
package import StrongroomWire

/// `/v1/integrity/…`: app instances register an Ed25519 key, fetch a single-use challenge and check in signed
/// integrity reports; `/v1/admin/integrity` shows the history to the service provider (Strongroom's extension to
/// the E3DB API).
struct IntegrityRoutes {
    let store: any IntegrityStore
    let authorization: Authorization
    let clock: ServerClock
    let policy: IntegrityPolicy
    let limits: ServerLimits

    /// How long a challenge may be answered.
    static let challengeLifetime: Int64 = 300

    /// Routes behind bearer or TSV1 authentication (never refused by the integrity policy: a client must be able to
    /// check in a clean report).
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.integrityInstances), use: register)
        routes.post(RouterPath(.integrityChallenge), use: challenge)
        routes.post(RouterPath(.integrityReports), use: checkIn)
        return routes
    }

    /// The admin routes (behind ``RouteGuard/admin``): the history, and lifting a client's hold.
    var adminRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.integrityHistory), use: history)
        routes.post(RouterPath(.integrityClear), use: clear)
        return routes
    }

    /// The reports one page of the history holds by default, and at most.
    static let (defaultPageSize, maximumPageSize) = (20, 100)
    /// The most report text one page of the history carries: a page ends early past it (at least one entry).
    static let maximumPageReportBytes = 4 << 20

    func register(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(IntegrityInstanceRequest.self, request, context)
        guard let instanceID = canonicalUUID(body.instanceID) else {
            throw ServerError.badRequest("instance_id is not a UUID")
        }
        guard (try? SigningPublicKey(base64URLEncoded: body.publicKey)) != nil else {
            throw ServerError.badRequest("public_key is not an Ed25519 public key")
        }
        guard body.name.utf8.count <= 256 else { throw ServerError.badRequest("name is longer than 256 bytes") }
        try requireNoNUL(body.name, "name")
        guard
            let (stored, inserted) = try await store.registerIntegrityInstance(
                StoredIntegrityInstance(
                    instanceID: instanceID,
                    clientID: caller,
                    publicKey: body.publicKey,
                    name: body.name,
                    registered: clock.unixSeconds
                ),
                limit: limits.integrityInstancesPerClient
            )
        else {
            throw ServerError(
                .quotaExceeded,
                "this client has \(limits.integrityInstancesPerClient) integrity instances already"
            )
        }
        guard stored.clientID == caller, stored.publicKey == body.publicKey else {
            throw ServerError.conflict("this instance ID is registered with another key or client")
        }
        let answer = IntegrityInstanceResponse(
            instanceID: instanceID,
            clientID: caller,
            registeredAt: stored.registered
        )
        return try json(answer, status: inserted ? .created : .ok)
    }

    func challenge(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let now = clock.unixSeconds
        let nonce = Base64URL.encode(SecureRandom.data(count: 32))
        try await store.insertIntegrityChallenge(
            nonce: nonce,
            clientID: caller,
            expires: now + Self.challengeLifetime,
            now: now,
            limit: limits.integrityChallengesPerClient
        )
        return try json(
            IntegrityChallengeResponse(nonce: nonce, serverTime: now, expiresAt: now + Self.challengeLifetime)
        )
    }

    func checkIn(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(IntegrityCheckInRequest.self, request, context)
        var registered: StoredIntegrityInstance?
        if let instanceID = canonicalUUID(body.instanceID) {
            registered = try await store.integrityInstance(id: instanceID)
        }
        let instance = try authorization.requireOwner(of: registered, caller: caller)
        let instanceID = instance.instanceID
        guard body.nonce.utf8.count <= 128, body.signature.utf8.count <= 128,
            body.report.utf8.count <= Base64URL.encodedLength(of: limits.maximumIntegrityReportBytes),
            let report = try? Base64URL.decode(body.report), let signature = try? Base64URL.decode(body.signature),
            let key = try? SigningPublicKey(base64URLEncoded: instance.publicKey)
        else { throw ServerError.badRequest("the report, nonce or signature is malformed") }
        let signed = IntegrityCheckInRequest.signedBytes(
            clientID: caller,
            instanceID: instanceID,
            nonce: body.nonce,
            report: Array(report)
        )
        guard key.isValidSignature(signature, for: signed) else {
            throw ServerError.forbidden("the report's signature does not verify with the instance's key")
        }
        let now = clock.unixSeconds
        guard try await store.consumeIntegrityChallenge(nonce: body.nonce, clientID: caller, now: now) else {
            throw ServerError.forbidden("the challenge was used already, has expired, or was never issued")
        }
        let summary = try Self.summary(of: report)
        let verdict = summary.effectiveVerdict
        try await store.insertIntegrityReport(
            StoredIntegrityReport(
                clientID: caller,
                instanceID: instanceID,
                received: now,
                checked: summary.checkedAt,
                verdict: verdict,
                findings: summary.findings.map { "\($0.kind):\($0.severity.rawValue)" }.joined(separator: ","),
                report: String(decoding: report, as: UTF8.self)
            ),
            keep: limits.integrityReportsPerClient
        )
        // The client's standing, not this report's verdict alone: a hold or another instance may refuse it.
        let standing = try await store.integrityVerdict(clientID: caller)
        policy.recorded(standing, for: caller)
        return try json(
            IntegrityCheckInResponse(verdict: verdict, receivedAt: now, refused: standing.map(policy.refuses) ?? false),
            status: .created
        )
    }

    /// The report's verdict and findings: known words (decoding refuses others), bounded counts and lengths.
    static func summary(of report: Data) throws -> IntegrityReportSummary {
        guard let summary = try? JSONDecoder().decode(IntegrityReportSummary.self, from: report) else {
            throw ServerError.badRequest("the report is not an integrity report")
        }
        guard summary.findings.count <= 256,
            summary.findings.allSatisfy({ $0.kind.utf8.count <= 64 && !$0.kind.contains(",") && !$0.kind.contains(":") }
            )
        else { throw ServerError.badRequest("the report's findings are not understood") }
        return summary
    }

    /// GET `?client_id=…&limit=…&before=…`: the newest reports (20 by default, at most 100), of one client or of
    /// all, older than index `before` when given; a page ends early once it carries 4 MiB of reports.
    func history(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let clientID = try parameters["client_id"].map { text in
            guard let id = canonicalUUID(String(text)) else { throw ServerError.badRequest("client_id is not a UUID") }
            return id
        }
        let limit = try parameters["limit"].map { text in
            guard let limit = Int(String(text)), (1...Self.maximumPageSize).contains(limit) else {
                throw ServerError.badRequest("limit is 1 to \(Self.maximumPageSize)")
            }
            return limit
        }
        let before = try parameters["before"].map { text in
            guard let index = Int64(String(text)), index > 0 else {
                throw ServerError.badRequest("before is a positive index")
            }
            return index
        }
        return try json(
            try await integrityEntries(
                store: store,
                clientID: clientID,
                limit: limit ?? Self.defaultPageSize,
                before: before
            )
        )
    }

    /// POST `/v1/admin/integrity/{client_id}/clear`: lifts the client's hold and forgets its instances' verdicts;
    /// 404 when there was nothing to clear.
    func clear(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        guard let text = context.parameters.get("client_id"), let clientID = canonicalUUID(text) else {
            throw ServerError.badRequest("the client ID is not a UUID")
        }
        guard try await store.clearIntegrity(clientID: clientID) else {
            throw ServerError.notFound("this client has no integrity verdict to clear")
        }
        policy.forget(clientID)
        return try json(["client_id": clientID, "cleared": "true"])
    }
}

/// Stored integrity reports as history entries, newest first: what the admin route and `strongroom-server
/// integrity` show. At most `limit` (1 to 100) entries older than index `before`, ending early once they carry
/// 4 MiB of reports (always at least one).
package func integrityEntries(
    store: any IntegrityStore,
    clientID: String?,
    limit: Int,
    before: Int64? = nil
) async throws -> [IntegrityHistoryEntry] {
    var budget = IntegrityRoutes.maximumPageReportBytes
    var reports: [StoredIntegrityReport] = []
    for report in try await store.integrityReports(clientID: clientID, limit: limit, before: before) {
        budget -= report.report.utf8.count
        if budget < 0, !reports.isEmpty { break }
        reports.append(report)
    }
    return reports.map { report in
        IntegrityHistoryEntry(
            clientID: report.clientID,
            instanceID: report.instanceID,
            instanceName: report.instanceName,
            verdict: report.verdict,
            receivedAt: report.received,
            checkedAt: report.checked,
            findings: report.findings.isEmpty ? [] : report.findings.split(separator: ",").map(String.init),
            report: report.report,
            index: report.index
        )
    }
}
