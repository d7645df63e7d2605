// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// Reading certificates from files: one DER certificate, or any number of PEM ones (a bundle or a chain).
public enum CertificateBundle {
    /// The most certificates read from one bundle, and the largest input, in bytes.
    public static let maximumCertificates = 256
    public static let maximumEncodedBytes = 4 * 1024 * 1024

    /// The certificates in `bytes`, in file order.
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` when no certificate parses, a PEM block is not one, or the
    ///   input is larger than the limits.
    public static func certificates(from bytes: [UInt8]) throws(PKIError) -> [Certificate] {
        guard bytes.count <= maximumEncodedBytes else {
            throw PKIError(.invalidEncoding, "a certificate file is at most \(maximumEncodedBytes) bytes")
        }
        if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") {
            let documents: [PEMDocument]
            do {
                documents = try PEMDocument.parseMultiple(pemString: text)
            } catch {
                throw PKIError(.invalidEncoding, "the PEM text does not parse", underlying: error)
            }
            let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }
            guard !certificates.isEmpty, certificates.count <= maximumCertificates else {
                throw PKIError(.invalidEncoding, "the PEM text holds 1 to \(maximumCertificates) certificates")
            }
            var result: [Certificate] = []
            for document in certificates {
                do {
                    result.append(try Certificate(derEncoded: document.derBytes))
                } catch {
                    throw PKIError(.invalidEncoding, "a PEM certificate does not parse", underlying: error)
                }
            }
            return result
        }
        do {
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw PKIError(.invalidEncoding, "the bytes are neither PEM certificates nor a DER certificate")
        }
    }
}

extension Certificate {
    /// The DER encoding.
    public func derBytes() throws(PKIError) -> [UInt8] { try encodedDER(naming: "certificate") }

    /// The PEM encoding (`-----BEGIN CERTIFICATE-----`).
    public func pemString() throws(PKIError) -> String { try encodedPEM(naming: "certificate") }

    /// SHA-256 of the DER encoding, as `openssl x509 -fingerprint -sha256` prints it (colon-separated hex), or
    /// `unavailable` when the certificate cannot be encoded (never the digest of something else).
    public var sha256Fingerprint: String {
        // Display: a certificate that cannot be encoded has no fingerprint to show.
        guard let der = try? derBytes() else { return "unavailable" }
        return SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The subject alternative names as text: `DNS:…`, `email:…`, `URI:…`, `IP:…` (OpenSSL's spelling).
    public var alternativeNameStrings: [String] {
        // For display: a malformed SAN extension shows no names (validation refuses it separately).
        guard let names = try? extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let value): "DNS:\(value)"
            case .rfc822Name(let value): "email:\(value)"
            case .uniformResourceIdentifier(let value): "URI:\(value)"
            case .ipAddress(let bytes): "IP:\(IPAddressText.text(Array(bytes.bytes)))"
            default: nil
            }
        }
    }

    /// A readable summary: subject, issuer, serial, validity, SANs, key, SHA-256 fingerprint and SPKI pin.
    public var summary: String {
        let formatter = ISO8601DateFormatter()
        let key = (try? KeyAlgorithm(of: publicKey).description) ?? "unknown"  // display: a key type we do not use
        var lines = [
            "subject:     \(subject)",
            "issuer:      \(issuer)",
            "serial:      \(serialNumber.hexString)",
            "not before:  \(formatter.string(from: notValidBefore))",
            "not after:   \(formatter.string(from: notValidAfter))",
            "key:         \(key)",
            "sha256:      \(sha256Fingerprint)",
            "pin:         \(publicKey.pin)",
        ]
        let names = alternativeNameStrings
        if !names.isEmpty { lines.insert("names:       \(names.joined(separator: ", "))", at: 5) }
        if let usages = try? extensions.extendedKeyUsage {  // display: a malformed one shows as absent
            lines.append("usage:       \(usages.map { "\($0)" }.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }
}

extension Certificate.SerialNumber {
    /// The serial as Strongroom prints it everywhere (`pki show`, `enroll`, `ca list`) and `ca revoke` reads it:
    /// lowercase hex, two digits per byte, no separators (swift-certificates' own description drops each byte's
    /// leading zero, `cc:f:87` for `cc:0f:87`, which cannot be pasted back).
    public var hexString: String { bytes.hexString }
}
