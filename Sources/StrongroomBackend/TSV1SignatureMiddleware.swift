// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import Hummingbird
import Logging
public import StrongroomCrypto
import StrongroomPKI

/// Requires a TSV1 signature (`Authorization: TSV1-ED25519-BLAKE2B; …`, as `SecureChannel` and the E3DB SDKs
/// sign) on every request it guards: the signature over the method, path and query, a timestamp within the
/// window, a signer the backend accepts, and a nonce not seen before. A request that fails any of them gets 401
/// with no detail an attacker could use; the nonce is remembered only once everything else passed.
///
/// When the request came with a verified TLS client certificate (``ClientCertificateMiddleware`` runs first), the
/// certificate's client URI must name the signer (``CertificateBinding/signerNamedByCertificate``, the default, as the
/// Strongroom server binds mutual TLS to the E3DB identity): a stolen signing key together with *another* enrolled
/// certificate is refused, so the two factors stay two.
///
/// The verified signer is in `context.caller.signer` for the routes.
public struct TSV1SignatureMiddleware<Context: SecureBackendRequestContext>: RouterMiddleware {
    /// Which signers a backend accepts.
    public struct Signers: Sendable {
        let accepts: @Sendable (_ clientID: String, _ key: SigningPublicKey) async throws -> Bool

        /// Exactly these keys, each for the client ID it is listed under.
        public static func keys(_ keys: [String: SigningPublicKey]) -> Signers {
            Signers { clientID, key in keys[clientID] == key }
        }

        /// Whatever `accepts` says (a lookup in the backend's own user table, say).
        public static func custom(
            _ accepts: @escaping @Sendable (_ clientID: String, _ key: SigningPublicKey) async throws -> Bool
        ) -> Signers {
            Signers(accepts: accepts)
        }
    }

    /// How a TSV1 signer must relate to the request's TLS client certificate.
    public struct CertificateBinding: Sendable, Hashable {
        let requiresMatch: Bool

        /// When the request carries a verified client certificate, its client URI
        /// (`urn:strongroom:client:<id>`) must name the signer's client ID; a request without one is not affected.
        public static var signerNamedByCertificate: CertificateBinding { CertificateBinding(requiresMatch: true) }
        /// The certificate and the signer are checked separately (any enrolled certificate with any accepted key):
        /// weaker, for a backend whose certificates do not name Strongroom clients.
        public static var independent: CertificateBinding { CertificateBinding(requiresMatch: false) }
    }

    let signers: Signers
    let nonces: any NonceStore
    let window: Duration
    let binding: CertificateBinding
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - signers: who may sign.
    ///   - nonces: where accepted nonces are kept for the window (``MemoryNonceStore`` for one instance).
    ///   - window: how far a signature's timestamp may be from this server's clock (5 minutes, as E3DB's).
    ///   - binding: whether a verified client certificate must name the signer (by default it must).
    ///   - now: this server's clock.
    public init(
        signers: Signers,
        nonces: any NonceStore = MemoryNonceStore(),
        window: Duration = .seconds(300),
        binding: CertificateBinding = .signerNamedByCertificate,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.signers = signers
        self.nonces = nonces
        self.window = window
        self.binding = binding
        self.now = now
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw refuse("no TSV1 signature", context) }
        let clock = now()
        let verified: TSV1.Header
        do {
            verified = try TSV1.verify(
                header,
                for: .init(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? ""),
                now: clock,
                window: window
            )
        } catch {
            throw refuse("invalid TSV1 signature: \(error.code)", context)
        }
        if binding.requiresMatch, let certificate = context.caller.certificate {
            guard let named = ClientCertificateName.clientID(of: certificate),
                named == verified.clientID.lowercased()
            else { throw refuse("the client certificate does not name the TSV1 signer", context) }
        }
        guard try await signers.accepts(verified.clientID, verified.publicKey) else {
            throw refuse("the TSV1 key is not accepted for that client", context)
        }
        let nowSeconds = Int64(clock.timeIntervalSince1970.rounded(.down))
        guard
            try await nonces.remember(
                publicKey: verified.publicKey.base64URLEncoded,
                nonce: verified.nonce,
                timestamp: verified.timestamp,
                forgettingBefore: nowSeconds - 2 * window.components.seconds
            )
        else { throw refuse("replayed TSV1 nonce", context) }
        var context = context
        context.caller.signer = VerifiedCaller.Signer(clientID: verified.clientID, publicKey: verified.publicKey)
        return try await next(request, context)
    }

    private func refuse(_ reason: String, _ context: Context) -> HTTPError {
        context.logger.info("request refused", metadata: ["reason": .string(reason)])
        return HTTPError(.unauthorized, message: "the request's signature was refused")
    }
}
