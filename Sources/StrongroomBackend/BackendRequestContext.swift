// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
public import NIOCore
public import StrongroomCrypto
public import StrongroomShield
public import X509

/// What the Strongroom middleware learnt about the caller of one request.
public struct VerifiedCaller: Sendable {
    /// Who signed the request (``TSV1SignatureMiddleware``), or nil.
    public var signer: Signer?
    /// The TLS client certificate, verified and not revoked (``ClientCertificateMiddleware``), or nil.
    public var certificate: Certificate?
    /// The device's integrity report, verified and accepted (``IntegrityVerdictMiddleware``), or nil.
    public var integrity: IntegrityReport?

    /// A TSV1 signer.
    public struct Signer: Sendable, Hashable {
        /// The `uid:` the signature names (empty for a signature by key alone).
        public var clientID: String
        /// The Ed25519 key that signed.
        public var publicKey: SigningPublicKey
    }

    /// Nothing verified yet.
    public init() {}
}

/// A request context the Strongroom middleware can work with: it keeps what they verified, and reaches the
/// connection for its TLS client certificate. ``BackendRequestContext`` is the ready-made one.
public protocol SecureBackendRequestContext: RequestContext {
    /// What the middleware verified about the caller; a route reads it.
    var caller: VerifiedCaller { get set }
    /// The request's connection (for its TLS client certificate): for HTTP/2, the connection its stream is on.
    var connection: any Channel { get }
}

/// A request context for a backend protected by the Strongroom middleware.
public struct BackendRequestContext: SecureBackendRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var caller = VerifiedCaller()
    public let connection: any Channel

    /// Creates the context for a new request (called by Hummingbird).
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        // An HTTP/2 request arrives on a stream channel whose parent is the connection, with TLS and its client
        // certificate; an HTTP/1.1 connection's parent is the listening socket, which has no remote address.
        if let parent = source.channel.parent, parent.remoteAddress != nil {
            self.connection = parent
        } else {
            self.connection = source.channel
        }
    }
}
