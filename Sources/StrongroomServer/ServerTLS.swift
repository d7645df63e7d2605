// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOSSL
import StrongroomCore
import StrongroomPKI
import X509

/// The certificate chain and private key a server presents, as PEM files, and whether it asks clients for
/// certificates (mutual TLS).
public struct ServerTLS: Sendable, Hashable {
    /// The leaf certificate first, then any intermediates.
    public var certificateChainPath: String
    /// The leaf's private key (unencrypted PEM; keep it mode 0600).
    public var privateKeyPath: String
    /// The PEM certificates client certificates must chain to (usually `<data>/ca/ca-chain.pem`); nil asks no
    /// client for a certificate.
    public var clientCertificateAuthorityPath: String?
    /// Whether a client certificate is optional or required (with ``clientCertificateAuthorityPath``).
    public var clientCertificates: ClientCertificateMode

    /// Names the PEM files.
    public init(
        certificateChainPath: String,
        privateKeyPath: String,
        clientCertificateAuthorityPath: String? = nil,
        clientCertificates: ClientCertificateMode = .optional
    ) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
        self.clientCertificateAuthorityPath = clientCertificateAuthorityPath
        self.clientCertificates = clientCertificates
    }

    /// Whether clients are asked for certificates.
    var isMutual: Bool { clientCertificateAuthorityPath != nil }

    /// The client CA's certificates; a missing file or one without certificates fails here, at start-up.
    func clientAnchors() throws -> [Certificate] {
        guard let path = clientCertificateAuthorityPath else { return [] }
        do {
            return try CertificateBundle.certificates(from: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        } catch {
            throw ServerError(.configuration, "the client CA \(path) cannot be read: \(error)")
        }
    }

    /// A TLS 1.2+ server configuration over the files; a missing or unreadable file fails here, at start-up. With
    /// client anchors (``clientAnchors()``), clients are asked for a certificate chaining to them (and must present
    /// one when required); the server's own verifier then checks it.
    func makeConfiguration(clientAnchors: [Certificate] = []) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath).map {
            NIOSSLCertificateSource.certificate($0)
        }
        guard !chain.isEmpty else { throw ServerError.badRequest("\(certificateChainPath) holds no certificate") }
        let key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        var configuration: TLSConfiguration
        if !clientAnchors.isEmpty {
            configuration = TLSConfiguration.makeServerConfigurationWithMTLS(
                certificateChain: chain,
                privateKey: .privateKey(key),
                trustRoots: .certificates(
                    try clientAnchors.map { try NIOSSLCertificate(bytes: try $0.derBytes(), format: .der) }
                )
            )
            configuration.certificateVerification =
                clientCertificates == .required ? .noHostnameVerification : .optionalVerification
            configuration.verifySignatureAlgorithms = MutualTLS.clientSignatureAlgorithms
        } else {
            configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain,
                privateKey: .privateKey(key)
            )
        }
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
