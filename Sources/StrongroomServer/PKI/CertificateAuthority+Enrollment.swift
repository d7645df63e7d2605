// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
package import Foundation
import StrongroomCore
import StrongroomPKI
package import StrongroomWire
import X509

extension CertificateAuthority {
    /// Checks `csr` for `clientID` (it verifies, has a supported key, names this client only, asks for clientAuth
    /// only), issues the certificate and records it in `store`: what enrollment, renewal and `ca issue` share.
    ///
    /// - Throws: ``ServerError`` 400 for a CSR that is malformed or asks for too much, 403 for a CSR naming another
    ///   client.
    package func enroll(
        csr: String,
        clientID: String,
        lifetime: Duration,
        store: any CertificateStore,
        now: Date
    ) async throws -> EnrollmentResponse {
        try await enroll(
            publicKey: try EnrollmentRules.check(csr, for: clientID),
            clientID: clientID,
            lifetime: lifetime,
            store: store,
            now: now
        )
    }

    /// Issues and records a certificate for a key whose CSR ``EnrollmentRules`` already accepted.
    func enroll(
        publicKey key: Certificate.PublicKey,
        clientID: String,
        lifetime: Duration,
        store: any CertificateStore,
        now: Date
    ) async throws -> EnrollmentResponse {
        let certificate = try issueClientCertificate(for: key, clientID: clientID, lifetime: lifetime, now: now)
        let der = try certificate.derBytes()
        let notAfter = Int64(certificate.notValidAfter.timeIntervalSince1970.rounded(.down))
        try await store.insertCertificate(
            StoredCertificate(
                serial: certificate.serialNumber.hexString,
                clientID: clientID,
                notBefore: Int64(certificate.notValidBefore.timeIntervalSince1970.rounded(.down)),
                notAfter: notAfter,
                issued: Int64(now.timeIntervalSince1970.rounded(.down)),
                fingerprint: SHA256.hash(data: der).hexString
            )
        )
        return EnrollmentResponse(
            certificate: try certificate.pemString(),
            chain: try chainPEM(),
            serial: certificate.serialNumber.hexString,
            notAfter: notAfter
        )
    }
}
