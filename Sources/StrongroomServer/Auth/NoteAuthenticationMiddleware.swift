// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCrypto
import StrongroomWire

/// Notes take TSV1 only. The caller is identified by its key; `uid:` may be empty (anonymous), and when it is
/// not, it must name a registered client whose signing key signed the request.
struct NoteAuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let store: any ServerStore
    let signatureWindow: Duration

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix(TSV1.scheme) else {
            throw ServerError.unauthorized("notes need a TSV1 signature")
        }
        let verified: TSV1.Header
        do {
            verified = try TSV1.verify(
                header,
                for: .init(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? ""),
                now: Date(),
                window: signatureWindow
            )
        } catch {
            throw ServerError.unauthorized("invalid TSV1 signature")
        }
        let key = verified.publicKey.base64URLEncoded
        var context = context
        if !verified.clientID.isEmpty {
            guard let id = canonicalUUID(verified.clientID), let client = try await store.client(id: id),
                client.enabled,
                client.signingKey?.ed25519 == key
            else { throw ServerError.unauthorized("the TSV1 key does not belong to that client") }
            context.clientID = id
        }
        guard try await store.rememberNonce(publicKey: key, nonce: verified.nonce, timestamp: verified.timestamp) else {
            throw ServerError.unauthorized("replayed TSV1 nonce")
        }
        try await NonceCache.prune(store, now: Int64(Date().timeIntervalSince1970), window: signatureWindow)
        context.signerKey = key
        return try await next(request, context)
    }
}
