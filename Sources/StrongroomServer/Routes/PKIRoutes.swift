// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomPKI
import StrongroomWire
import SwiftASN1
import Synchronization
import X509

/// `/v1/pki/…`: the CA chain (public), enrollment (an authenticated client sends a CSR) and renewal (over mutual TLS
/// with the current certificate). Strongroom's extension to the E3DB API.
struct PKIRoutes {
    let store: any CertificateStore
    let authority: CertificateAuthority?
    let clock: ServerClock
    let lifetime: Duration
    let limits: ServerLimits
    /// The last list built: anyone may ask for it, so one is signed at most every ten seconds (renewals here clear
    /// it; revocations by `strongroom-server ca revoke` show within ten seconds, and the handshake and every request
    /// check the database directly anyway).
    let revocationLists = RevocationListCache()

    /// Routes anyone may call: the chain and the revocation list.
    var publicRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.certificateAuthority), use: chain)
        routes.get(RouterPath(.revocationList), use: revocationList)
        return routes
    }

    /// Renewal, authenticated by the TLS client certificate itself (``RouteGuard/certificate``).
    var renewalRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.renew), use: renew)
        return routes
    }

    /// Routes behind bearer or TSV1 authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.enroll), use: enroll)
        return routes
    }

    private func requireAuthority() throws -> CertificateAuthority {
        guard let authority else {
            throw ServerError.notFound("this server has no certificate authority (strongroom-server ca init)")
        }
        return authority
    }

    /// GET: the CA chain as PEM, CA certificate first.
    func chain(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let pem = try requireAuthority().chainPEM()
        return Response(
            status: .ok,
            headers: [.contentType: "application/x-pem-file"],
            body: .init(byteBuffer: ByteBuffer(string: pem))
        )
    }

    /// GET: the CA's revocation list, DER (`application/pkix-crl`), signed now and valid for an hour.
    func revocationList(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let authority = try requireAuthority()
        let now = clock.unixSeconds
        let list: CertificateRevocationList
        if let cached = revocationLists.list(at: now) {
            list = cached
        } else {
            list = try await authority.revocationList(store: store, now: clock.now)
            revocationLists.keep(list, at: now)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/pkix-crl", .cacheControl: "max-age=300"],
            body: .init(byteBuffer: ByteBuffer(bytes: list.derBytes))
        )
    }

    /// POST: a certificate for the authenticated caller from its CSR (201).
    func enroll(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let authority = try requireAuthority()
        let body = try await decodeBody(EnrollmentRequest.self, request, context)
        return try json(try await enroll(body.csr, for: caller, by: authority), status: .created)
    }

    /// POST over mutual TLS: a new certificate for the client the current one names (the key may change); the
    /// current certificate is revoked as superseded. An expired, revoked or refused certificate renews nothing.
    func renew(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let authority = try requireAuthority()
        // The guard checked the certificate (valid now, unrevoked, naming an enabled client) and the refusal.
        let clientID = try context.caller()
        guard let current = await context.peerCertificate() else {
            throw ServerError.unauthorized("renewal needs the current client certificate over mutual TLS")
        }
        let body = try await decodeBody(EnrollmentRequest.self, request, context)
        // Everything that can refuse the request is checked before the current certificate is given up; then the
        // revocation is the atomic step, so one certificate is renewed once (a kept-alive connection or two
        // concurrent renewals with it get a 401).
        try await requireIssuanceQuota(clientID)
        let key = try EnrollmentRules.check(body.csr, for: clientID)
        guard
            try await store.revokeCertificate(
                serial: current.serialNumber.hexString,
                at: clock.unixSeconds,
                reason: "superseded"
            )
        else { throw ServerError.unauthorized("this client certificate was renewed or revoked already") }
        revocationLists.clear()
        let issued = try await authority.enroll(
            publicKey: key,
            clientID: clientID,
            lifetime: lifetime,
            store: store,
            now: clock.now
        )
        return try json(issued, status: .created)
    }

    /// 429 once `clientID` was issued ``ServerLimits/certificatesPerClientPerDay`` certificates in 24 hours, so a
    /// client cannot grow the certificate table without bound (two concurrent requests may both pass the check).
    private func requireIssuanceQuota(_ clientID: String) async throws {
        let issued = try await store.certificateCount(clientID: clientID, issuedSince: clock.unixSeconds - 86_400)
        guard issued < limits.certificatesPerClientPerDay else {
            throw ServerError(
                .quotaExceeded,
                "this client was issued \(issued) certificates in the last 24 hours; try again later"
            )
        }
    }

    private func enroll(
        _ csr: String,
        for clientID: String,
        by authority: CertificateAuthority
    ) async throws
        -> EnrollmentResponse
    {
        try await requireIssuanceQuota(clientID)
        return try await authority.enroll(
            csr: csr,
            clientID: clientID,
            lifetime: lifetime,
            store: store,
            now: clock.now
        )
    }
}

/// The most recent revocation list and when it was built, reused for ten seconds.
final class RevocationListCache: Sendable {
    private let latest = Mutex<(list: CertificateRevocationList, built: Int64)?>(nil)

    /// The cached list when it was built less than ten seconds before `now` (Unix seconds).
    func list(at now: Int64) -> CertificateRevocationList? {
        latest.withLock { entry in
            guard let entry, (0..<10).contains(now - entry.built) else { return nil }
            return entry.list
        }
    }

    /// Keeps `list`, built at `now`.
    func keep(_ list: CertificateRevocationList, at now: Int64) { latest.withLock { $0 = (list, now) } }

    /// Forgets the cached list (a revocation happened here).
    func clear() { latest.withLock { $0 = nil } }
}
