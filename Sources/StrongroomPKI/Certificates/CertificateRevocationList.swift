// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// An X.509 v2 certificate revocation list (RFC 5280 §5) signed by a CA: what relying parties outside Strongroom
/// (a TLS terminator's `ssl_crl`, `openssl verify -crl_check`) read to learn which certificates the CA withdrew.
///
/// The list carries the issuer's name, `thisUpdate`/`nextUpdate`, a CRL number and the issuer's key identifier
/// (both required of a conforming CA), and per entry the serial, the revocation time and, when known, the reason.
public struct CertificateRevocationList: Sendable, Hashable {
    /// Why a certificate was revoked (RFC 5280 §5.3.1 `CRLReason`; the reasons a Strongroom CA records).
    public enum Reason: Int, Sendable, Hashable, CaseIterable {
        /// The key may have leaked.
        case keyCompromise = 1
        /// The subject's details changed.
        case affiliationChanged = 3
        /// A newer certificate replaced it (renewal).
        case superseded = 4
        /// The subject no longer needs it.
        case cessationOfOperation = 5
    }

    /// One revoked certificate.
    public struct Entry: Sendable, Hashable {
        /// The certificate's serial number.
        public var serialNumber: Certificate.SerialNumber
        /// When it was revoked.
        public var revocationDate: Date
        /// Why, when recorded (an operator's plain revocation has none, as RFC 5280 asks instead of `unspecified`).
        public var reason: Reason?

        /// An entry for `serialNumber` revoked at `revocationDate`.
        public init(serialNumber: Certificate.SerialNumber, revocationDate: Date, reason: Reason? = nil) {
            (self.serialNumber, self.revocationDate, self.reason) = (serialNumber, revocationDate, reason)
        }
    }

    /// The most entries one list holds; a CA with more revoked certificates in force should shorten lifetimes.
    public static let maximumEntries = 500_000

    /// The DER encoding (`CertificateList`), as served with `Content-Type: application/pkix-crl`.
    public let derBytes: [UInt8]
    /// The CA that signed the list.
    public let issuer: DistinguishedName
    /// The CRL number (nil when the list has none).
    public let number: Int64?
    /// When the list was made (whole seconds).
    public let thisUpdate: Date
    /// When a newer list will be available (whole seconds; nil when the list does not say, which RFC 5280 forbids a
    /// conforming CA).
    public let nextUpdate: Date?
    /// The revoked certificates, in the list's order.
    public let entries: [Entry]
    /// The entries' serial numbers, for ``contains(_:)``.
    let serialNumbers: Set<Certificate.SerialNumber>

    /// The PEM encoding (`-----BEGIN X509 CRL-----`).
    public var pemString: String { PEMDocument(type: "X509 CRL", derBytes: derBytes).pemString }

    /// Builds and signs a list.
    ///
    /// - Parameters:
    ///   - issuer: The CA certificate whose key signs the list; its subject is the list's issuer and its subject key
    ///     identifier the list's authority key identifier.
    ///   - key: The CA's private key (P-256, P-384, P-521 or Ed25519).
    ///   - entries: The revoked certificates, at most ``maximumEntries``.
    ///   - number: The CRL number, increasing with every list the CA publishes (0 up to 2⁶³ − 1).
    ///   - thisUpdate: When the list was made.
    ///   - nextUpdate: When a newer one will be available (after `thisUpdate`).
    /// - Throws: ``PKIError/Code/invalidParameters`` for a key that is not the certificate's, too many entries, a
    ///   negative number or `nextUpdate` not after `thisUpdate`; ``PKIError/Code/invalidEncoding`` if signing fails.
    public init(
        issuer: Certificate,
        key: Certificate.PrivateKey,
        entries: [Entry],
        number: Int64,
        thisUpdate: Date,
        nextUpdate: Date
    ) throws(PKIError) {
        guard key.publicKey == issuer.publicKey else {
            throw PKIError(.invalidParameters, "the key does not belong to the CA certificate")
        }
        guard entries.count <= Self.maximumEntries else {
            throw PKIError(.invalidParameters, "a list holds at most \(Self.maximumEntries) entries")
        }
        guard number >= 0, nextUpdate > thisUpdate else {
            throw PKIError(.invalidParameters, "the CRL number is not negative and nextUpdate follows thisUpdate")
        }
        let algorithm = try KeyAlgorithm(of: key.publicKey)
        guard let oid = Self.signatureOID[algorithm] else {
            throw PKIError(.unsupported, "CRLs are signed with EC or Ed25519 CA keys")
        }
        do {
            let tbs = try Self.encodeList(
                issuer: issuer,
                oid: oid,
                entries: entries,
                number: number,
                thisUpdate: thisUpdate,
                nextUpdate: nextUpdate
            )
            let signature = try key.sign(bytes: tbs, signatureAlgorithm: algorithm.signatureAlgorithm)
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: .sequence) { coder in
                coder.serializeRawBytes(tbs)
                try Self.serializeAlgorithm(oid, into: &coder)
                try coder.serialize(ASN1BitString(bytes: signature.rawRepresentation[...]))
            }
            derBytes = serializer.serializedBytes
            self.issuer = issuer.subject
            self.number = number
            self.thisUpdate = Self.wholeSeconds(thisUpdate)
            self.nextUpdate = Self.wholeSeconds(nextUpdate)
            self.entries = entries.map {
                Entry(
                    serialNumber: $0.serialNumber,
                    revocationDate: Self.wholeSeconds($0.revocationDate),
                    reason: $0.reason
                )
            }
            serialNumbers = Set(entries.map(\.serialNumber))
        } catch {
            throw PKIError(.invalidEncoding, "the revocation list could not be signed", underlying: error)
        }
    }

    /// The signed part (`TBSCertList`) of a DER-encoded list, for known-answer comparisons (the signature itself is
    /// randomised for ECDSA).
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` when `der` is not a `CertificateList`.
    public static func signedPart(of der: [UInt8]) throws(PKIError) -> [UInt8] {
        do {
            let root = try DER.parse(der)
            guard root.identifier == .sequence, case .constructed(let nodes) = root.content,
                let first = nodes.first(where: { _ in true }), first.identifier == .sequence
            else { throw PKIError(.invalidEncoding, "not a certificate revocation list") }
            return Array(first.encodedBytes)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.invalidEncoding, "not a certificate revocation list", underlying: error)
        }
    }

    // MARK: - Encoding

    static let signatureOID: [KeyAlgorithm: ASN1ObjectIdentifier] = [
        .p256: [1, 2, 840, 10045, 4, 3, 2],  // ecdsa-with-SHA256
        .p384: [1, 2, 840, 10045, 4, 3, 3],  // ecdsa-with-SHA384
        .p521: [1, 2, 840, 10045, 4, 3, 4],  // ecdsa-with-SHA512
        .ed25519: [1, 3, 101, 112],  // id-Ed25519
    ]
    static let reasonCodeOID: ASN1ObjectIdentifier = [2, 5, 29, 21]
    static let crlNumberOID: ASN1ObjectIdentifier = [2, 5, 29, 20]

    private static func encodeList(
        issuer: Certificate,
        oid: ASN1ObjectIdentifier,
        entries: [Entry],
        number: Int64,
        thisUpdate: Date,
        nextUpdate: Date
    ) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)  // v2
            try serializeAlgorithm(oid, into: &coder)
            try coder.serialize(issuer.subject)
            try serializeTime(thisUpdate, into: &coder)
            try serializeTime(nextUpdate, into: &coder)
            if !entries.isEmpty {
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    for entry in entries { try serializeEntry(entry, into: &coder) }
                }
            }
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    if let identifier = try issuer.extensions.subjectKeyIdentifier?.keyIdentifier {
                        try coder.serialize(
                            try Certificate.Extension(
                                AuthorityKeyIdentifier(keyIdentifier: identifier),
                                critical: false
                            )
                        )
                    }
                    var value = DER.Serializer()
                    try value.serialize(number)
                    try coder.serialize(
                        Certificate.Extension(oid: crlNumberOID, critical: false, value: value.serializedBytes[...])
                    )
                }
            }
        }
        return serializer.serializedBytes
    }

    private static func serializeEntry(_ entry: Entry, into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(entry.serialNumber.bytes)
            try serializeTime(entry.revocationDate, into: &coder)
            if let reason = entry.reason {
                var value = DER.Serializer()
                // ENUMERATED, one content byte: every reason is below 128.
                value.appendPrimitiveNode(identifier: .enumerated) { $0.append(UInt8(reason.rawValue)) }
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize(
                        Certificate.Extension(oid: reasonCodeOID, critical: false, value: value.serializedBytes[...])
                    )
                }
            }
        }
    }

    private static func serializeAlgorithm(_ oid: ASN1ObjectIdentifier, into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in try coder.serialize(oid) }
    }

    /// UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §5.1.2.4), whole seconds.
    private static func serializeTime(_ date: Date, into coder: inout DER.Serializer) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day, let hour = parts.hour,
            let minute = parts.minute, let second = parts.second, (1950...9999).contains(year)
        else { throw PKIError(.invalidParameters, "a CRL time is between 1950 and 9999") }
        if year < 2050 {
            try coder.serialize(
                UTCTime(year: year, month: month, day: day, hours: hour, minutes: minute, seconds: second)
            )
        } else {
            try coder.serialize(
                GeneralizedTime(
                    year: year,
                    month: month,
                    day: day,
                    hours: hour,
                    minutes: minute,
                    seconds: second,
                    fractionalSeconds: 0
                )
            )
        }
    }

    /// `date` without its fraction of a second, as the list encodes it.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
