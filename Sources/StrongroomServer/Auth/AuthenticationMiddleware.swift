// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCrypto

/// Accepts `Authorization: Bearer <token>` or a TSV1 signature from a registered client on every authenticated
/// route; anything else is a 401 before the handler runs.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let tokens: TokenIssuer
    let store: any ServerStore
    let signatures: TSV1Verifier
    let clock: ServerClock

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServerError.unauthorized() }
        var context = context
        if header.utf8.count > 7, header.utf8.count <= 1024, header.prefix(7).lowercased() == "bearer " {
            guard let clientID = tokens.verify(String(header.dropFirst(7)), now: clock.unixSeconds),
                let client = try await store.client(text: clientID), client.enabled
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
        return try await next(request, context)
    }
}
