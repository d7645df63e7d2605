// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCrypto
import StrongroomWire

/// Accepts `Authorization: Bearer <token>` or a TSV1 signature from a registered client on every authenticated
/// route; anything else is a 401 before the handler runs. Over mutual TLS the connection's client certificate must
/// name the same client as the credentials (and, when required, be there), and must still be valid and unrevoked
/// (``ClientCertificateCheck``).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let tokens: TokenIssuer
    /// The caller's client row, cached across requests.
    let clients: ClientCache
    let signatures: TSV1Verifier
    let clock: ServerClock
    /// The connection's TLS client certificate, checked and bound to the caller on every request.
    let certificates: ClientCertificateCheck

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServerError.unauthorized() }
        var context = context
        if header.utf8.count > 7, header.utf8.count <= 1024, Self.isBearer(header) {
            // A token issued before the client's last key change is over (`issued` nil: before tokens said when).
            guard let token = tokens.verified(header.dropFirst(7), now: clock.unixSeconds),
                let client = try await clients.client(text: token.clientID), client.enabled,
                client.keysChanged.map({ (token.issued ?? 0) >= $0.microseconds }) ?? true
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
        try await certificates.check(caller: context.clientID, context: context)
        return try await next(request, context)
    }

    /// Whether `header` starts with `Bearer ` in any case (compared byte by byte: this runs on every request).
    private static func isBearer(_ header: String) -> Bool {
        header.utf8.prefix(7).elementsEqual("bearer ".utf8) { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }
}
