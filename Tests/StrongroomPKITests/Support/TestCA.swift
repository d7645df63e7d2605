// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomPKI
import StrongroomTesting
import SwiftASN1
import X509

/// A throw-away CA for tests of any key algorithm: issues leaf certificates for CSRs, as the server CA will. Its
/// certificates are valid around ``referenceTime``, a fixed instant, so validate them `at:` it.
struct TestCA {
    /// The instant every certificate here is made around.
    static let referenceTime = Date(timeIntervalSince1970: 1_800_000_000)

    let key: Certificate.PrivateKey
    let certificate: Certificate

    init(name: String = "Strongroom test CA", algorithm: KeyAlgorithm = .p256, validFor: TimeInterval = 86_400) throws {
        let key = try algorithm.generatePrivateKey()
        self.key = key
        let subject = try DistinguishedName { CommonName(name) }
        let now = Self.referenceTime
        certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(validFor),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: algorithm.signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
            },
            issuerPrivateKey: key
        )
    }

    /// A leaf for `csr`'s key and subject, with its requested SANs and `usage`, valid from `start` for `lifetime`.
    func issue(
        _ csr: CertificateSigningRequest,
        usage: [ExtendedKeyUsage.Usage] = [.clientAuth],
        start: Date = TestCA.referenceTime.addingTimeInterval(-60),
        lifetime: TimeInterval = 3600
    ) throws -> Certificate {
        let requested = csr.requestedExtensions
        return try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: csr.publicKey,
            notValidBefore: start,
            notValidAfter: start.addingTimeInterval(lifetime),
            issuer: certificate.subject,
            subject: csr.subject,
            signatureAlgorithm: try KeyAlgorithm(of: key.publicKey).signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage(usage)
                if let names = try requested.subjectAlternativeNames { names }
            },
            issuerPrivateKey: key
        )
    }
}

/// Runs `openssl` with `arguments` in `directory`; its status and output.
func openssl(_ arguments: [String], in directory: URL) async throws -> ExternalProcess.Outcome {
    try await ExternalProcess.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments: arguments, directory: directory)
}
