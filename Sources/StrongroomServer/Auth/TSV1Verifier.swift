// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import Logging
import StrongroomCrypto
import StrongroomWire

/// Checks a TSV1 `Authorization` header the same way for every route: signature over the request's path and
/// query, the time window, the identity named by `uid:` (when there is one) and the replay cache.
struct TSV1Verifier: Sendable {
    /// Who signed a verified request.
    struct Signer: Sendable {
        /// The registered client named by `uid:`, or nil for an anonymous signature.
        var clientID: String?
        /// The Ed25519 public key that signed, base64url.
        var publicKey: String
    }

    let store: any ClientStore
    /// The signer's client row, cached across requests.
    let clients: ClientCache
    let window: Duration
    let clock: ServerClock

    /// Verifies `header` for `request`; any failure is a 401 that names no detail an attacker could use, and is
    /// logged at `info` (without the header). The nonce is remembered only once the signature, the time window and
    /// the signer's identity have all been verified, so a refused request stores nothing.
    ///
    /// - Parameter allowsAnonymous: whether an empty `uid:` is acceptable (notes) or a 401 (storage).
    func verify(
        _ header: String,
        for request: Request,
        context: StrongroomRequestContext,
        allowsAnonymous: Bool
    ) async throws -> Signer {
        func refuse(_ reason: String) -> ServerError {
            context.logger.info(
                "TSV1 authentication failed: \(reason)",
                metadata: ["source": .string(context.sourceAddress), "path": .string(request.uri.path)]
            )
            return ServerError.unauthorized(reason)
        }
        let verified: TSV1.Header
        do {
            verified = try TSV1.verify(
                header,
                for: .init(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? ""),
                now: clock.now,
                window: window
            )
        } catch {
            throw refuse("invalid TSV1 signature")
        }
        let key = verified.publicKey.base64URLEncoded
        var clientID: String?
        if !verified.clientID.isEmpty {
            guard let id = ClientID(verified.clientID), let client = try await clients.client(id: id),
                client.enabled,
                client.signingKey?.ed25519 == key
            else { throw refuse("the TSV1 key does not belong to that client") }
            clientID = id.description
        } else if !allowsAnonymous {
            throw refuse("storage requests need a TSV1 signature from a registered client")
        }
        guard try await store.rememberNonce(publicKey: key, nonce: verified.nonce, timestamp: verified.timestamp) else {
            throw refuse("replayed TSV1 nonce")
        }
        try await pruneNonces()
        return Signer(clientID: clientID, publicKey: key)
    }

    /// About one signed request in a hundred deletes nonces older than twice the window (older ones can never be
    /// replayed: their timestamps fail the window check first).
    private func pruneNonces() async throws {
        guard Int.random(in: 0..<100) == 0 else { return }
        let now = clock.unixSeconds
        try await store.forgetNonces(olderThan: now - 2 * window.components.seconds)
    }
}
