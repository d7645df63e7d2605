// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomPKI
import X509

/// The per-request checks of a connection's TLS client certificate, run by every route that identifies a client
/// (see ``RouteGuard``): the certificate must be within its validity now and not revoked, and it must name the
/// caller. The handshake checked the chain once, but a kept-alive or resumed connection outlives that moment: a
/// certificate that expires or is revoked stops working at the next request, not at the next handshake.
struct ClientCertificateCheck: Sendable {
    let store: any CertificateStore
    let clock: ServerClock
    /// The listener's client-certificate mode, or nil when it asks for none (then there is nothing to check).
    let mode: ClientCertificateMode?

    /// Checks the connection's certificate for `caller` (nil for an anonymous note writer, who is bound to no
    /// client: the certificate must then only be valid and unrevoked).
    ///
    /// - Throws: ``ServerError`` 401 with the reason.
    func check(caller: String?, context: StrongroomRequestContext) async throws {
        guard let mode else { return }
        guard let certificate = await context.peerCertificate() else {
            if mode == .required { throw ServerError.unauthorized("a TLS client certificate is required") }
            return
        }
        try await requireCurrent(certificate)
        guard let caller else { return }
        switch CertifiedClient(certificate) {
        case .client(let certified) where certified == caller: return
        case .client:
            context.logger.info(
                "the TLS client certificate belongs to another client",
                metadata: ["client": .string(caller)]
            )
            throw ServerError.unauthorized("the TLS client certificate belongs to another client")
        case .unnamed: throw ServerError.unauthorized("the TLS client certificate names no Strongroom client")
        case .none: return
        }
    }

    /// The client the connection's certificate names, after the same checks: what renewal authenticates with.
    ///
    /// - Throws: ``ServerError`` 401 without a current certificate that names a client.
    func certifiedCaller(context: StrongroomRequestContext) async throws -> String {
        guard let certificate = await context.peerCertificate(),
            case .client(let clientID) = CertifiedClient(certificate)
        else { throw ServerError.unauthorized("this route needs the current client certificate over mutual TLS") }
        try await requireCurrent(certificate)
        return clientID
    }

    /// Within its validity at the server's clock, and not revoked or renewed.
    private func requireCurrent(_ certificate: Certificate) async throws {
        let now = clock.now
        if now > certificate.notValidAfter {
            throw ServerError.unauthorized("the TLS client certificate expired at \(certificate.notValidAfter)")
        }
        if now < certificate.notValidBefore {
            throw ServerError.unauthorized(
                "the TLS client certificate is not valid before \(certificate.notValidBefore)"
            )
        }
        if try await store.certificate(serial: certificate.serialNumber.hexString)?.isRevoked == true {
            throw ServerError.unauthorized("the TLS client certificate was revoked or renewed")
        }
    }
}

/// For the routes the TLS client certificate itself authenticates (renewal): the caller is the client the current
/// certificate names, and that client must be enabled.
struct CertificateAuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let certificates: ClientCertificateCheck
    let clients: ClientCache

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let clientID = try await certificates.certifiedCaller(context: context)
        guard let client = try await clients.client(text: clientID), client.enabled else {
            throw ServerError.unauthorized("the certificate's client is not enabled")
        }
        context.clientID = client.clientID
        return try await next(request, context)
    }
}
