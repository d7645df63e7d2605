// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCrypto

/// Accepts `Authorization: Bearer <token>` or a TSV1 signature from a registered client on every authenticated
/// route; anything else is a 401 before the handler runs.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let tokens: TokenIssuer
    let store: any ServerStore
    let signatures: TSV1Verifier

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServerError.unauthorized() }
        var context = context
        if header.count > 7, header.prefix(7).lowercased() == "bearer " {
            guard let clientID = tokens.verify(String(header.dropFirst(7)), now: Int64(Date().timeIntervalSince1970)),
                let client = try await store.client(id: clientID), client.enabled
            else { throw ServerError.unauthorized("invalid or expired token") }
            context.clientID = client.clientID
        } else if header.hasPrefix(TSV1.scheme) {
            let signer = try await signatures.verify(header, for: request)
            guard let clientID = signer.clientID else {
                throw ServerError.unauthorized("storage requests need a TSV1 signature from a registered client")
            }
            context.clientID = clientID
            context.signerKey = signer.publicKey
        } else {
            throw ServerError.unauthorized()
        }
        return try await next(request, context)
    }
}
