// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import SwiftASN1
public import X509

#if canImport(Glibc)
import Glibc
#endif

extension CertificateAuthority {
    /// The most names one server certificate may carry.
    public static let maximumServerNames = 100

    /// Issues a TLS server certificate for `publicKey`: subject `CN=<first name>`, a SAN for every DNS name and IP
    /// address, EKU serverAuth only, valid from a minute before `now` for `lifetime` (never past the CA's own end).
    ///
    /// - Throws: ``PKIError/Code/invalidParameters`` without a name, with more than ``maximumServerNames``, with a DNS
    ///   name that is not one (empty, over 253 bytes, a character outside letters, digits, `-`, `.` and a leading
    ///   `*.`); ``PKIError/Code/expired`` once the CA certificate has expired.
    public func issueServerCertificate(
        for publicKey: Certificate.PublicKey,
        dnsNames: [String],
        ipAddresses: [IPAddress],
        lifetime: Duration,
        now: Date
    ) throws -> Certificate {
        guard !(dnsNames.isEmpty && ipAddresses.isEmpty) else {
            throw PKIError(.invalidParameters, "a server certificate names at least one host or IP address")
        }
        guard dnsNames.count + ipAddresses.count <= Self.maximumServerNames else {
            throw PKIError(.invalidParameters, "a server certificate names at most \(Self.maximumServerNames) hosts")
        }
        for name in dnsNames where !Self.isDNSName(name) {
            throw PKIError(.invalidParameters, "\(name) is not a host name")
        }
        let names =
            dnsNames.map { GeneralName.dnsName($0.lowercased()) }
            + ipAddresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0.bytes))) }
        return try issueLeaf(
            for: publicKey,
            subject: try DistinguishedName { CommonName(dnsNames.first ?? ipAddresses[0].description) },
            usage: .serverAuth,
            names: names,
            lifetime: lifetime,
            now: now
        )
    }

    /// Whether `name` is a DNS host name (labels of letters, digits and `-`; a leading `*.` wildcard allowed).
    static func isDNSName(_ name: String) -> Bool {
        let body = name.hasPrefix("*.") ? name.dropFirst(2) : Substring(name)
        guard !body.isEmpty, name.utf8.count <= 253 else { return false }
        return body.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
                }
        }
    }
}

/// An IPv4 or IPv6 address for a certificate's subject alternative names.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Its 4 or 16 bytes, network order.
    public let bytes: [UInt8]
    /// As it was written.
    public let description: String

    /// The address `text` (dotted IPv4 or IPv6 text), or nil when it is not one.
    public init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
        description = text
    }
}
