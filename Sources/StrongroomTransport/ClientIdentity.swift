// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOSSL
import StrongroomCore
import StrongroomPKI
import SwiftASN1
public import X509

/// The certificate and private key a client presents over mutual TLS, with any intermediates.
///
/// Build one from a keychain identity (`Client.TransportOptions(clientIdentity: .keychain(…))`), from a `.p12`
/// through `PKCS12.import`, or from PEM. The private key is kept sealed in memory (`SealedSecret`, StrongroomCore:
/// XChaCha20-Poly1305 under a per-process key in locked memory) for as long as the identity lives, and opened only
/// to hand BoringSSL its copy when a TLS context is made; our plaintext copy is wiped at once.
///
/// Two identities are equal when they hold the same certificate and intermediates (the key is the certificate's,
/// checked when the identity is made).
public struct ClientIdentity: Sendable, Hashable {
    /// The client certificate.
    public let certificate: Certificate
    /// Intermediates between it and the CA the server trusts (often empty).
    public let intermediates: [Certificate]
    /// The private key as PKCS#8 DER, sealed.
    private let sealedKey: SealedSecret

    /// Pairs a certificate with its key.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when the key does not match the certificate or cannot
    ///   be used for TLS.
    public init(
        certificate: Certificate,
        privateKey: Certificate.PrivateKey,
        intermediates: [Certificate] = []
    ) throws(TransportError) {
        guard privateKey.publicKey == certificate.publicKey else {
            throw TransportError(.invalidConfiguration, "the client key does not belong to the client certificate")
        }
        do {
            self.sealedKey = SealedSecret(try privateKey.pkcs8())
        } catch {
            throw TransportError(.invalidConfiguration, "the client key cannot be used for TLS", underlying: error)
        }
        self.certificate = certificate
        self.intermediates = intermediates
    }

    public static func == (lhs: ClientIdentity, rhs: ClientIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.intermediates == rhs.intermediates
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
        hasher.combine(intermediates)
    }

    /// An identity from PEM text: the certificate first, then any intermediates, and a PKCS#8 or SEC1 key.
    public init(certificatePEM: String, privateKeyPEM: String) throws(TransportError) {
        let certificates: [Certificate]
        let key: Certificate.PrivateKey
        do {
            certificates = try CertificateBundle.certificates(from: Array(certificatePEM.utf8))
            key = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        } catch {
            throw TransportError(
                .invalidConfiguration,
                "the client certificate or key does not parse",
                underlying: error
            )
        }
        try self.init(certificate: certificates[0], privateKey: key, intermediates: Array(certificates.dropFirst()))
    }

    /// The private key, opened from its sealed form for one use (renewal signs a CSR with it).
    package func unsealedPrivateKey() throws -> Certificate.PrivateKey {
        try Certificate.PrivateKey(encoded: sealedKey.unsealed())
    }

    /// The client ID the certificate is bound to (SAN URI `urn:strongroom:client:<id>`), if it names one.
    public var clientID: String? { ClientCertificateName.clientID(of: certificate) }

    /// Puts the chain and key into a TLS configuration.
    func apply(to configuration: inout TLSConfiguration) throws {
        configuration.certificateChain = try ([certificate] + intermediates).map {
            .certificate(try NIOSSLCertificate(bytes: try $0.derBytes(), format: .der))
        }
        var der = sealedKey.withUnsealed { Array($0) }
        defer { Wipe.bytes(&der) }
        configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: der, format: .der))
    }
}
