// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Crypto
public import Foundation
import SwiftASN1
public import X509

/// The certificates tests need, all from one builder and all relative to one `referenceTime`: a root CA, an
/// intermediate under it, and leaves (current, expired, not yet valid) with the names and usages a test asks for.
///
/// Tests that validate with an explicit time (`ChainValidator`, revocation lists) pass a fixed reference time, so
/// their outcome never depends on the day they run; tests that hand certificates to a TLS peer, which checks them
/// against its own clock, pass `Date()`.
public struct TestPKI: Sendable {
    /// A certificate and its P-256 key.
    public struct Issued: Sendable {
        public let certificate: Certificate
        public let key: P256.Signing.PrivateKey

        /// The key as swift-certificates signs with it.
        public var privateKey: Certificate.PrivateKey { Certificate.PrivateKey(key) }

        /// A certificate made elsewhere (a server's own CA, read from its files), to issue leaves under.
        public init(certificate: Certificate, key: P256.Signing.PrivateKey) {
            (self.certificate, self.key) = (certificate, key)
        }
    }

    /// When a leaf is valid relative to the reference time.
    public enum Validity: Sendable {
        /// From a minute before the reference time for an hour.
        case current
        /// From two hours before it to one hour before it.
        case expired
        /// From an hour after it, for an hour.
        case notYetValid
        /// From a minute before the reference time until `end`.
        case until(Date)
    }

    /// The time every certificate here is valid (or deliberately not valid) around.
    public let referenceTime: Date
    /// A self-signed CA, valid from a minute before the reference time for a day.
    public let root: Issued
    /// A CA under ``root`` (path length 0), valid as the root is.
    public let intermediate: Issued

    /// Makes a root named `rootName` and an intermediate under it.
    public init(referenceTime: Date, rootName: String = "Strongroom Test CA") throws {
        self.referenceTime = referenceTime
        let rootKey = P256.Signing.PrivateKey()
        let rootSubject = try DistinguishedName { CommonName(rootName) }
        root = Issued(
            certificate: try Self.authority(
                key: rootKey,
                subject: rootSubject,
                issuer: nil,
                pathLength: nil,
                referenceTime: referenceTime
            ),
            key: rootKey
        )
        let intermediateKey = P256.Signing.PrivateKey()
        intermediate = Issued(
            certificate: try Self.authority(
                key: intermediateKey,
                subject: try DistinguishedName { CommonName(rootName + " intermediate") },
                issuer: root,
                pathLength: 0,
                referenceTime: referenceTime
            ),
            key: intermediateKey
        )
    }

    /// A leaf for `commonName` with `names` as its SANs and `usage` as its extended key usage, signed by `issuer`
    /// (the root when nil) and valid as `validity` says; a new key unless `key` is given.
    public func leaf(
        commonName: String,
        names: [GeneralName] = [],
        usage: [ExtendedKeyUsage.Usage] = [.serverAuth],
        issuer: Issued? = nil,
        validity: Validity = .current,
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()
    ) throws -> Issued {
        let signer = issuer ?? root
        let (notBefore, notAfter): (TimeInterval, TimeInterval) =
            switch validity {
            case .current: (-60, 3600)
            case .expired: (-7200, -3600)
            case .notYetValid: (3600, 7200)
            case .until(let end): (-60, end.timeIntervalSince(referenceTime))
            }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: referenceTime + notBefore,
            notValidAfter: referenceTime + notAfter,
            issuer: signer.certificate.subject,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage(usage)
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: signer.privateKey
        )
        return Issued(certificate: certificate, key: key)
    }

    /// A server leaf for `localhost` and `127.0.0.1`, signed by the root.
    public func localhost(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) throws -> Issued {
        try leaf(
            commonName: "localhost",
            names: [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))],
            key: key
        )
    }

    private static func authority(
        key: P256.Signing.PrivateKey,
        subject: DistinguishedName,
        issuer: Issued?,
        pathLength: Int?,
        referenceTime: Date
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: referenceTime - 60,
            notValidAfter: referenceTime + 86_400,
            issuer: issuer?.certificate.subject ?? subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: pathLength))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: issuer?.privateKey ?? Certificate.PrivateKey(key)
        )
    }
}
