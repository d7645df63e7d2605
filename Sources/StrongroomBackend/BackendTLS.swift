// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
public import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import StrongroomCore
import StrongroomPKI
import SwiftASN1
public import X509

extension HTTPServerBuilder {
    /// HTTP/1.1 over TLS 1.2+ that asks every client for a certificate and completes the handshake only for one
    /// `policy` accepts (chain to its anchors, client authentication, validity, revocation): a client without one
    /// never reaches a route. Pair it with ``ClientCertificateMiddleware``, which checks validity and revocation again
    /// on every request of a kept-alive connection.
    ///
    /// - Parameters:
    ///   - certificateChain: the server's certificate, then any intermediates.
    ///   - privateKey: the server certificate's key.
    ///   - policy: which client certificates complete the handshake.
    /// - Throws: when the certificates or the key cannot be used for TLS.
    public static func mutualTLS(
        certificateChain: [Certificate],
        privateKey: Certificate.PrivateKey,
        clientCertificates policy: ClientCertificatePolicy
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
        return try .tls(
            .http1(),
            configuration: TLSChannelConfiguration(
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
