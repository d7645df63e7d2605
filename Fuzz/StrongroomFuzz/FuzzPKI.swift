// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomPKI
import SwiftASN1
import X509

/// Certificates and requests a peer or an enrolling device sends.
enum FuzzPKI {
    static func csr(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? CertificateSigningRequest(encoded: Array(input))
    }

    static func certificate(_ input: UnsafeBufferPointer<UInt8>) {
        guard let certificate = try? Certificate(derEncoded: Array(input)) else { return }
        _ = try? ChainValidator.requireBoundedKey(certificate)
        _ = try? ChainValidator.boundedIntermediates([certificate, certificate])
    }

    static func crl(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? CertificateRevocationList.signedPart(of: Array(input))
        guard let issuer = crlIssuer else { return }
        _ = try? CertificateRevocationList(derEncoded: Array(input), issuer: issuer)
    }

    /// A CA named like the corpus lists' issuer (so reading gets as far as the signature), with a key of its own.
    static let crlIssuer: Certificate? = {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        guard let name = try? DistinguishedName(builder: { CommonName("Strongroom CRL fixture CA") }) else {
            return nil
        }
        return try? Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: key.publicKey,
            notValidBefore: Date(timeIntervalSince1970: 0),
            notValidAfter: Date(timeIntervalSince1970: 4_000_000_000),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: key
        )
    }()

    static func pkcs12(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? PKCS12.import(Array(input), passphrase: "fuzz")
    }
}
