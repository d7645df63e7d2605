// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
public import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOSSL
import StrongroomCore
import StrongroomPKI
import SwiftASN1
public import X509

extension HTTPServerBuilder {
    /// HTTP/1.1 (and HTTP/2 on request, chosen by ALPN) over TLS 1.2+ that asks every client for a certificate and
    /// completes the handshake only for one `policy` accepts (chain to its anchors, client authentication, validity,
    /// revocation): a client without one never reaches a route. Pair it with ``ClientCertificateMiddleware``, which
    /// checks validity and revocation again on every request of a kept-alive connection.
    ///
    /// HTTP/2 is off by default: Hummingbird's HTTP/2 connections accept at most 16 KiB of request headers (its
    /// HPACK default, not configurable), and a request over it ends the whole connection instead of getting 431 —
    /// an `IntegrityEvidence` header with many findings can exceed that, where HTTP/1.1 takes up to 80 KiB.
    ///
    /// - Parameters:
    ///   - certificateChain: the server's certificate, then any intermediates.
    ///   - privateKey: the server certificate's key.
    ///   - policy: which client certificates complete the handshake.
    ///   - http2: whether HTTP/2 is offered too (`SecureChannel` then carries every request to this server on one
    ///     connection, each on a stream of its own); false, the default, serves HTTP/1.1 alone.
    /// - Throws: when the certificates or the key cannot be used for TLS.
    public static func mutualTLS(
        certificateChain: [Certificate],
        privateKey: Certificate.PrivateKey,
        clientCertificates policy: ClientCertificatePolicy,
        http2: Bool = false
    ) throws -> HTTPServerBuilder {
        let chain = try certificateChain.map {
            NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: try $0.derBytes(), format: .der))
        }
        var der = try privateKey.pkcs8().withUnsafeBytes { Array($0) }
        defer { Wipe.bytes(&der) }
        let key = try NIOSSLPrivateKey(bytes: der, format: .der)
        var configuration = TLSConfiguration.makeServerConfigurationWithMTLS(
            certificateChain: chain,
            privateKey: .privateKey(key),
            trustRoots: .certificates(
                try policy.anchors.map { try NIOSSLCertificate(bytes: try $0.derBytes(), format: .der) }
            )
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .noHostnameVerification
        configuration.verifySignatureAlgorithms = MutualTLS.clientSignatureAlgorithms
        // (Hummingbird's HTTP/2 and TLS modules each have a TLSChannelConfiguration.)
        guard http2 else {
            return try .tls(
                .http1(),
                configuration: HummingbirdTLS.TLSChannelConfiguration(
                    tlsConfiguration: configuration,
                    customAsyncVerificationCallback: { await policy.verify($0) }
                )
            )
        }
        return try .http2Upgrade(
            tlsChannelConfiguration: HummingbirdHTTP2.TLSChannelConfiguration(
                tlsConfiguration: configuration,
                customAsyncVerificationCallback: { await policy.verify($0) }
            )
        )
    }
}

/// Requires the connection's TLS client certificate on every request it guards, and checks it again — validity
/// now and revocation — since a kept-alive connection outlives its handshake: a certificate revoked or expired
/// stops working at the next request. The certificate is in `context.caller.certificate` for the routes.
public struct ClientCertificateMiddleware<Context: SecureBackendRequestContext>: RouterMiddleware {
    let policy: ClientCertificatePolicy

    /// Checks certificates with `policy` (the one the TLS listener uses).
    public init(policy: ClientCertificatePolicy) {
        self.policy = policy
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let presented = try? await context.connection.nioSSL_peerCertificate().get(),
            let certificate = try? Certificate(derEncoded: try presented.toDERBytes())
        else { throw HTTPError(.unauthorized, message: "a TLS client certificate is required") }
        if let refusal = await policy.refusal(of: certificate) {
            context.logger.info("client certificate refused", metadata: ["reason": .string(refusal)])
            throw HTTPError(.unauthorized, message: "the TLS client certificate was refused")
        }
        var context = context
        context.caller.certificate = certificate
        return try await next(request, context)
    }
}
