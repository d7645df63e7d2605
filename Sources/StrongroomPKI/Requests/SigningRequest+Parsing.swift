// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import StrongroomCore
import SwiftASN1
public import X509

extension CertificateSigningRequest {
    /// The longest CSR accepted, in bytes (PEM or DER).
    public static let maximumEncodedBytes = 64 * 1024

    /// Parses a CSR from PEM (`CERTIFICATE REQUEST`) or DER.
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` for anything else, or more than ``maximumEncodedBytes``.
    public init(encoded bytes: [UInt8]) throws(PKIError) {
        guard bytes.count <= Self.maximumEncodedBytes else {
            throw PKIError(.invalidEncoding, "a CSR is at most \(Self.maximumEncodedBytes) bytes")
        }
        do {
            if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") {
                self = try CertificateSigningRequest(pemEncoded: text)
            } else {
                self = try CertificateSigningRequest(derEncoded: bytes)
            }
        } catch {
            throw PKIError(.invalidEncoding, "the bytes are not a PEM or DER certificate signing request")
        }
    }

    /// Checks the CSR's self-signature: its key signed it, so the requester holds the private key.
    ///
    /// - Throws: ``PKIError/Code/badSignature``.
    public func verifySignature() throws(PKIError) {
        guard publicKey.isValidSignature(signature, for: self) else {
            throw PKIError(.badSignature, "the CSR's signature does not verify with its own public key")
        }
    }

    /// The extensions the CSR asks for (its PKCS#9 extension request), empty when none.
    public var requestedExtensions: Certificate.Extensions {
        for attribute in attributes {
            // Another attribute than the extension request: keep looking.
            if let request = try? ExtensionRequest(attribute) { return request.extensions }
        }
        return Certificate.Extensions()
    }

    /// The DER encoding.
    public func derBytes() throws(PKIError) -> [UInt8] { try encodedDER(naming: "CSR") }

    /// The PEM encoding (`-----BEGIN CERTIFICATE REQUEST-----`).
    public func pemString() throws(PKIError) -> String { try encodedPEM(naming: "CSR") }
}
