// Strongroom — SPDX-License-Identifier: Apache-2.0

import NIOSSL
public import X509

/// What one TLS connection to the server negotiated, as the transport opens one for a request (same roots,
/// pins and client identity): the protocol version, the ALPN protocol and the chain the server presented.
///
/// The cipher suite is not part of it: swift-nio-ssl 2.x does not expose the negotiated suite (only the version,
/// the ALPN protocol and the peer's certificates). Restrict suites on the server if a deployment needs a given one.
public struct ConnectionSecurity: Sendable, Hashable {
    /// The host connected to.
    public var host: String
    /// The port connected to.
    public var port: Int
    /// The TLS version, such as `TLSv1.3`.
    public var tlsVersion: String
    /// The application protocol agreed by ALPN (`http/1.1`), or nil when the server chose none.
    public var applicationProtocol: String?
    /// The certificates the server presented, leaf first (verified against the trust before the handshake ended).
    public var serverChain: [Certificate]
    /// Whether a client identity was configured, so the certificate is shown when the server asks for one.
    public var presentsClientCertificate: Bool

    /// Creates a description (the transport fills it in from a handshake).
    public init(
        host: String,
        port: Int,
        tlsVersion: String,
        applicationProtocol: String?,
        serverChain: [Certificate],
        presentsClientCertificate: Bool
    ) {
        self.host = host
        self.port = port
        self.tlsVersion = tlsVersion
        self.applicationProtocol = applicationProtocol
        self.serverChain = serverChain
        self.presentsClientCertificate = presentsClientCertificate
    }

    /// The conventional name of a TLS version (`TLSv1.2`, `TLSv1.3`).
    static func name(of version: TLSVersion) -> String {
        switch version {
        case .tlsv1: "TLSv1"
        case .tlsv11: "TLSv1.1"
        case .tlsv12: "TLSv1.2"
        case .tlsv13: "TLSv1.3"
        }
    }
}
