// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCrypto
import StrongroomWire

/// Accepts `Authorization: Bearer <token>` or a TSV1 signature on every authenticated route; anything else is a
/// 401 before the handler runs.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let tokens: TokenIssuer
    let store: any ServerStore
    let signatureWindow: Duration

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw ServerError.unauthorized() }
        var context = context
        context.clientID = try await authenticate(header, request: request)
        return try await next(request, context)
    }

    private func authenticate(_ header: String, request: Request) async throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        if header.count > 7, header.prefix(7).lowercased() == "bearer " {
            guard let clientID = tokens.verify(String(header.dropFirst(7)), now: now),
                let client = try await store.client(id: clientID), client.enabled
            else { throw ServerError.unauthorized("invalid or expired token") }
            return client.clientID
        }
        if header.hasPrefix(TSV1.scheme) {
            let path = request.uri.path
            let query = request.uri.query ?? ""
            let verified: TSV1.Header
            do {
                verified = try TSV1.verify(
                    header,
                    for: .init(method: request.method.rawValue, path: path, query: query),
                    now: Date(),
                    window: signatureWindow
                )
            } catch {
                throw ServerError.unauthorized("invalid TSV1 signature")
            }
            guard let id = UUID(uuidString: verified.clientID)?.uuidString.lowercased(),
                let client = try await store.client(id: id), client.enabled,
                client.signingKey?.ed25519 == verified.publicKey.base64URLEncoded
            else { throw ServerError.unauthorized("the TSV1 key does not belong to a registered client") }
            guard
                try await store.rememberNonce(
                    publicKey: verified.publicKey.base64URLEncoded,
                    nonce: verified.nonce,
                    timestamp: verified.timestamp
                )
            else { throw ServerError.unauthorized("replayed TSV1 nonce") }
            try await NonceCache.prune(store, now: now, window: signatureWindow)
            return client.clientID
        }
        throw ServerError.unauthorized()
    }
}

/// Keeps the TSV1 replay cache small: about one signed request in a hundred deletes nonces older than twice the
/// window (older ones can never be replayed: their timestamps fail the window check first).
enum NonceCache {
    static func prune(_ store: any ServerStore, now: Int64, window: Duration) async throws {
        guard Int.random(in: 0..<100) == 0 else { return }
        try await store.forgetNonces(olderThan: now - 2 * window.components.seconds)
    }
}
