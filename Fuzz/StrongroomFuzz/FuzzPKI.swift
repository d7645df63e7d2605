// Strongroom — SPDX-License-Identifier: Apache-2.0
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
    }

    static func pkcs12(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? PKCS12.import(Array(input), passphrase: "fuzz")
    }
}
