// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCrypto
import X509

/// Accepts `Authorization: Bearer <token>` or a TSV1 signature from a registered client on every authenticated
/// route; anything else is a 401 before the handler runs. Over mutual TLS the connection's client certificate must
/// name the same client as the credentials (and, when required, be there), and must not have been revoked since the
/// connection's handshake.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let tokens: TokenIssuer
    let store: any ServerStore
    /// The caller's client row, cached across requests.
    let clients: ClientCache
    let signatures: TSV1Verifier
    let clock: ServerClock
    /// The listener's client-certificate mode, or nil when it asks for none.
    let clientCertificates: ClientCertificateMode?

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServerError.unauthorized() }
        var context = context
        if header.utf8.count > 7, header.utf8.count <= 1024, Self.isBearer(header) {
            guard let clientID = tokens.verify(header.dropFirst(7), now: clock.unixSeconds),
                let client = try await clients.client(text: clientID), client.enabled
            else {
                context.logger.info(
                    "bearer authentication failed: invalid or expired token",
                    metadata: ["source": .string(context.sourceAddress), "path": .string(request.uri.path)]
                )
                throw ServerError.unauthorized("invalid or expired token")
            }
            context.clientID = client.clientID
        } else if header.hasPrefix(TSV1.scheme) {
            let signer = try await signatures.verify(header, for: request, context: context, allowsAnonymous: false)
            context.clientID = signer.clientID
            context.signerKey = signer.publicKey
        } else {
            throw ServerError.unauthorized()
        }
        if let mode = clientCertificates, let caller = context.clientID {
            try await requireCertificateBinding(caller, mode: mode, context: context)
        }
        return try await next(request, context)
    }

    /// Whether `header` starts with `Bearer ` in any case (compared byte by byte: this runs on every request).
    private static func isBearer(_ header: String) -> Bool {
        header.utf8.prefix(7).elementsEqual("bearer ".utf8) { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }

    /// The TLS identity and the E3DB identity must be one client: a certificate of another client (or of none) is
    /// a 401 with the reason, and so is no certificate when one is required.
    private func requireCertificateBinding(
        _ caller: String,
        mode: ClientCertificateMode,
        context: Context
    ) async throws {
        let certificate = await context.peerCertificate()
        switch CertifiedClient(certificate) {
        case .client(let certified) where certified == caller:
            // Checked per request too, not only at the handshake: a kept-alive connection outlives a revocation.
            if let certificate, try await store.certificate(serial: certificate.serialNumber.hex)?.isRevoked == true {
                throw ServerError.unauthorized("the TLS client certificate was revoked or renewed")
            }
        case .client:
            context.logger.info(
                "the TLS client certificate belongs to another client",
                metadata: ["client": .string(caller)]
            )
            throw ServerError.unauthorized("the TLS client certificate belongs to another client")
        case .unnamed: throw ServerError.unauthorized("the TLS client certificate names no Strongroom client")
        case .none where mode == .required: throw ServerError.unauthorized("a TLS client certificate is required")
        case .none: return
        }
    }
}
