// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomPKI
import SwiftASN1
import Testing
import X509

/// A leaf whose key-usage or extended-key-usage extension does not parse is refused for its usage, never read as
/// if the extension were absent.
@Suite struct MalformedExtensionTests {
    static func leaf(ca: TestCA, malformed oid: ASN1ObjectIdentifier) throws -> Certificate {
        let key = P256.Signing.PrivateKey()
        return try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: TestCA.referenceTime - 60,
            notValidAfter: TestCA.referenceTime + 3600,
            issuer: ca.certificate.subject,
            subject: try DistinguishedName { CommonName("malformed") },
            signatureAlgorithm: try KeyAlgorithm(of: ca.key.publicKey).signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                if oid != .X509ExtensionID.extendedKeyUsage { try ExtendedKeyUsage([.clientAuth]) }
                // An ASN.1 NULL where the extension's structure belongs.
                Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: ca.key
        )
    }

    @Test(
        "a malformed key usage or extended key usage fails the usage check",
        arguments: [ASN1ObjectIdentifier.X509ExtensionID.keyUsage, .X509ExtensionID.extendedKeyUsage]
    )
    func malformedUsage(oid: ASN1ObjectIdentifier) async throws {
        let ca = try TestCA()
        let leaf = try Self.leaf(ca: ca, malformed: oid)
        let validator = ChainValidator(anchors: [ca.certificate])
        await #expect(throws: PKIError.self) {
            _ = try await validator.validate(leaf, purpose: .clientAuth, at: TestCA.referenceTime)
        }
    }
}
