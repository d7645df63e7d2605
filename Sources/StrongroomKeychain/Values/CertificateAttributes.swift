// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomPKI
import X509

/// The descriptive attributes recorded for certificate and identity items, so ``ItemFilter`` finds them without
/// parsing stored certificates.
enum CertificateAttributes {
    /// `subject` and `issuer` (RFC 4514 text), `serialNumber` (hex) and `publicKeyPin` (base64 SHA-256 of the SPKI).
    static func of(_ certificate: Certificate) -> [String: String] {
        [
            "subject": String(describing: certificate.subject),
            "issuer": String(describing: certificate.issuer),
            "serialNumber": String(describing: certificate.serialNumber),
            "publicKeyPin": certificate.publicKey.pin,
        ]
    }

    /// The conditions a certificate or identity filter sets.
    static func conditions(
        subject: DistinguishedName?,
        issuer: DistinguishedName?,
        publicKey: Certificate.PublicKey?
    ) -> [String: String?] {
        [
            "subject": subject.map { String(describing: $0) },
            "issuer": issuer.map { String(describing: $0) },
            "publicKeyPin": publicKey?.pin,
        ]
    }
}
