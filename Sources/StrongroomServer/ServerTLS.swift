// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOSSL

/// The certificate chain and private key a server presents, as PEM files.
public struct ServerTLS: Sendable, Hashable {
    /// The leaf certificate first, then any intermediates.
    public var certificateChainPath: String
    /// The leaf's private key (unencrypted PEM; keep it mode 0600).
    public var privateKeyPath: String

    /// Names the two PEM files.
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    /// A TLS 1.2+ server configuration over the files; a missing or unreadable file fails here, at start-up.
    func makeConfiguration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath).map {
            NIOSSLCertificateSource.certificate($0)
        }
        guard !chain.isEmpty else { throw ServerError.badRequest("\(certificateChainPath) holds no certificate") }
        let key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain,
            privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
