// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOSSL
import StrongroomCore
import StrongroomPKI
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies a server during the TLS handshake, in place of BoringSSL's own checks: the chain to the configured
/// roots, validity, the host name or address, then the pins against every key of the verified chain. The handshake
/// waits for it, so a client certificate is only sent to a server that passed.
struct ServerVerifier: Sendable {
    let trust: ServerTrust

    /// Nil when the server passes, else why it does not.
    func failure(of presented: [NIOSSLCertificate], host: String, isAddress: Bool) async -> String? {
        guard let pins = trust.pins(for: host) else { return "no pins are configured for \(host)" }
        // A longer list is refused before anything is parsed; the intermediates are then bounded as every
        // peer-supplied chain is (ChainValidator.boundedIntermediates), so a hostile server cannot make the
        // handshake's path building expensive.
        guard presented.count <= ChainValidator.maximumIntermediates + 2 else {
            return "the server presented \(presented.count) certificates; at most "
                + "\(ChainValidator.maximumIntermediates + 2) are accepted"
        }
        let chain: [Certificate]
        let intermediates: [Certificate]
        do {
            chain = try presented.map { try Certificate(derEncoded: try $0.toDERBytes()) }
            if let leaf = chain.first { try ChainValidator.requireBoundedKey(leaf) }
            intermediates = try ChainValidator.boundedIntermediates(Array(chain.dropFirst()))
        } catch let error as PKIError {
            return "the server's certificate chain is refused: \(error.message)"
        } catch {
            return "the server's certificate does not parse"
        }
        guard let leaf = chain.first else { return "the server presented no certificate" }
        let roots: CertificateStore =
            switch trust.roots {
            case .system: .systemTrustRoots
            case .certificates(let anchors): CertificateStore(anchors)
            }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: Date())
            ServerIdentityPolicy(serverHostname: isAddress ? nil : host, serverIP: isAddress ? host : nil)
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no trusted chain"
            return "the server's certificate is not trusted for \(host) (chain, expiry or host name): \(reason)"
        case .validCertificate(let validated):
            guard !pins.isEmpty else { return nil }
            let pinned = validated.contains { certificate in
                pins.contains { $0.matches(subjectPublicKeyInfo: certificate.publicKey.subjectPublicKeyInfo) }
            }
            return pinned ? nil : "the server presented a key that is not pinned for \(host)"
        }
    }
}
