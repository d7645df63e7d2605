// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// Reading a list a CA published, for a relying party that checks client certificates against it.
extension CertificateRevocationList {
    /// The largest encoded list read, in bytes: room for ``maximumEntries`` entries with a reason each.
    public static let maximumEncodedBytes = 48 << 20

    /// Reads a DER-encoded list (`CertificateList`, RFC 5280 §5) and checks that `issuer` signed it.
    ///
    /// The list must name `issuer`'s subject as its issuer, be signed by `issuer`'s key (ECDSA with SHA-256/384/512,
    /// Ed25519, or RSA PKCS #1 v1.5 with SHA-256/384/512) with the same algorithm its signed part names, and hold at
    /// most ``maximumEntries`` entries in at most ``maximumEncodedBytes`` bytes. `issuer`, when it has a key usage
    /// extension, must allow CRL signing. A critical extension this reader does not know — a delta list, a partitioned
    /// one (issuing distribution point), an indirect one (certificate issuer entries) — is refused, as RFC 5280
    /// asks: such a list does not say what a complete one says. Whether it is current (``nextUpdate``) is the
    /// caller's to decide.
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` for bytes that are not a list (or too many of them);
    ///   ``PKIError/Code/unsupported`` for a critical extension not understood, or another signature algorithm;
    ///   ``PKIError/Code/nameMismatch`` when the list names another issuer; ``PKIError/Code/wrongUsage`` when
    ///   `issuer` may not sign lists; ``PKIError/Code/badSignature`` when the signature does not verify.
    public init(derEncoded der: [UInt8], issuer certificate: Certificate) throws(PKIError) {
        try self.init(derEncoded: der, issuers: [certificate])
    }

    /// Reads a DER-encoded list once and checks it against whichever of `issuers` it names (several may share a name,
    /// as a re-keyed CA's certificates do: the one whose key verifies it), as ``init(derEncoded:issuer:)`` checks
    /// against one.
    package init(derEncoded der: [UInt8], issuers: [Certificate]) throws(PKIError) {
        guard der.count <= Self.maximumEncodedBytes else {
            throw PKIError(.invalidEncoding, "a revocation list is at most \(Self.maximumEncodedBytes) bytes")
        }
        let parts: Parts
        do {
            parts = try Parts(der)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.invalidEncoding, "not a certificate revocation list", underlying: error)
        }
        let named = issuers.filter { $0.subject == parts.issuer }
        guard !named.isEmpty else {
            throw PKIError(.nameMismatch, "the revocation list was issued by another CA (\(parts.issuer))")
        }
        guard let algorithm = Self.verifiableAlgorithms[parts.algorithm] else {
            throw PKIError(
                .unsupported,
                "the revocation list's signature algorithm \(parts.algorithm) is not supported"
            )
        }
        var refusal = PKIError(.badSignature, "the revocation list's signature does not verify with the CA's key")
        var signer: Certificate?
        for certificate in named where signer == nil {
            if let usage = try? certificate.extensions.keyUsage, !usage.cRLSign {
                refusal = PKIError(.wrongUsage, "the CA certificate may not sign revocation lists")
            } else if certificate.publicKey.isValidSignature(
                parts.signature,
                for: parts.signed,
                signatureAlgorithm: algorithm
            ) {
                signer = certificate
            }
        }
        guard signer != nil else { throw refusal }
        derBytes = der
        issuer = parts.issuer
        number = parts.number
        thisUpdate = parts.thisUpdate
        nextUpdate = parts.nextUpdate
        entries = parts.entries
        serialNumbers = Set(parts.entries.map(\.serialNumber))
    }

    /// Reads a PEM-encoded list (`-----BEGIN X509 CRL-----`), as ``init(derEncoded:issuer:)`` reads its DER.
    public init(pemEncoded pem: String, issuer certificate: Certificate) throws(PKIError) {
        try self.init(derEncoded: try Self.derBytes(pemEncoded: pem), issuer: certificate)
    }

    /// The DER bytes of a PEM list, its size bounded as the DER's is (base64 in lines of 64, and room for headers).
    package static func derBytes(pemEncoded pem: String) throws(PKIError) -> [UInt8] {
        guard pem.utf8.count <= maximumEncodedBytes / 3 * 4 / 64 * 65 + 4_096 else {
            throw PKIError(.invalidEncoding, "a revocation list is at most \(maximumEncodedBytes) bytes")
        }
        let document: PEMDocument
        do {
            document = try PEMDocument(pemString: pem)
        } catch {
            throw PKIError(.invalidEncoding, "not a PEM revocation list", underlying: error)
        }
        guard document.discriminator == "X509 CRL" else {
            throw PKIError(.invalidEncoding, "not a PEM revocation list (\(document.discriminator))")
        }
        return document.derBytes
    }

    /// Whether the list revokes the certificate with `serialNumber`.
    public func contains(_ serialNumber: Certificate.SerialNumber) -> Bool {
        serialNumbers.contains(serialNumber)
    }

    /// The signature algorithms whose lists are verified, by their object identifier.
    static let verifiableAlgorithms: [ASN1ObjectIdentifier: Certificate.SignatureAlgorithm] = [
        [1, 2, 840, 10045, 4, 3, 2]: .ecdsaWithSHA256, [1, 2, 840, 10045, 4, 3, 3]: .ecdsaWithSHA384,
        [1, 2, 840, 10045, 4, 3, 4]: .ecdsaWithSHA512, [1, 3, 101, 112]: .ed25519,
        [1, 2, 840, 113549, 1, 1, 11]: .sha256WithRSAEncryption,
        [1, 2, 840, 113549, 1, 1, 12]: .sha384WithRSAEncryption,
        [1, 2, 840, 113549, 1, 1, 13]: .sha512WithRSAEncryption,
    ]
}

/// A list's fields as its DER encoding holds them, before its signature is checked.
private struct Parts {
    var signed: ArraySlice<UInt8>
    var algorithm: ASN1ObjectIdentifier
    var signature: ArraySlice<UInt8>
    var issuer: DistinguishedName
    var number: Int64?
    var thisUpdate: Date
    var nextUpdate: Date?
    var entries: [CertificateRevocationList.Entry] = []

    static let authorityKeyIdentifier: ASN1ObjectIdentifier = [2, 5, 29, 35]
    static let invalidityDate: ASN1ObjectIdentifier = [2, 5, 29, 24]

    init(_ der: [UInt8]) throws {
        let root = try DER.parse(der)
        guard root.identifier == .sequence, case .constructed(let top) = root.content else { throw Self.malformed }
        let outer = Array(top)
        guard outer.count == 3, outer[0].identifier == .sequence, case .constructed(let fields) = outer[0].content
        else { throw Self.malformed }
        signed = outer[0].encodedBytes
        let outerAlgorithm = outer[1].encodedBytes
        let bits = try ASN1BitString(derEncoded: outer[2])
        guard bits.paddingBits == 0 else { throw Self.malformed }
        signature = bits.bytes
        // TBSCertList: version (v2) OPTIONAL, signature, issuer, thisUpdate, nextUpdate OPTIONAL,
        // revokedCertificates OPTIONAL, [0] crlExtensions OPTIONAL.
        var tbs = Array(fields)[...]
        if tbs.first?.identifier == .integer {
            guard try Int(derEncoded: tbs.removeFirst()) == 1 else { throw Self.malformed }
        }
        guard let inner = tbs.popFirst(), inner.encodedBytes == outerAlgorithm else {
            throw PKIError(.invalidEncoding, "the revocation list's two signature algorithms differ")
        }
        algorithm = try DER.sequence(inner, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(derEncoded: &nodes)
            _ = nodes.next()  // parameters (NULL for RSA), if any
            guard nodes.next() == nil else { throw Self.malformed }
            return oid
        }
        guard let name = tbs.popFirst() else { throw Self.malformed }
        issuer = try DistinguishedName(derEncoded: name)
        guard let this = tbs.popFirst() else { throw Self.malformed }
        thisUpdate = try Self.time(this)
        if let next = tbs.first, [.utcTime, .generalizedTime].contains(next.identifier) {
            nextUpdate = try Self.time(tbs.removeFirst())
            if let nextUpdate, nextUpdate <= thisUpdate {
                throw PKIError(.invalidEncoding, "the revocation list's nextUpdate does not follow its thisUpdate")
            }
        }
        if let list = tbs.first, list.identifier == .sequence {
            guard case .constructed(let revoked) = tbs.removeFirst().content else { throw Self.malformed }
            for node in revoked {
                guard entries.count < CertificateRevocationList.maximumEntries else {
                    throw PKIError(
                        .invalidEncoding,
                        "a revocation list holds at most \(CertificateRevocationList.maximumEntries) entries"
                    )
                }
                entries.append(try Self.entry(node))
            }
        }
        if let extensions = tbs.first,
            extensions.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        {
            tbs.removeFirst()
            guard case .constructed(let wrapped) = extensions.content, case let lists = Array(wrapped), lists.count == 1
            else { throw Self.malformed }
            let list = lists[0]
            for node in try Self.extensions(list) {
                switch node.oid {
                case CertificateRevocationList.crlNumberOID: number = try Int64(derEncoded: node.value)
                case Self.authorityKeyIdentifier: continue
                default: try Self.refuseIfCritical(node, of: "list")
                }
            }
        }
        guard tbs.isEmpty else { throw Self.malformed }
    }

    static let malformed = PKIError(.invalidEncoding, "not a certificate revocation list")

    /// One `revokedCertificates` entry: serial, date, and the extensions this reader knows.
    static func entry(_ node: ASN1Node) throws -> CertificateRevocationList.Entry {
        guard node.identifier == .sequence, case .constructed(let parts) = node.content else { throw malformed }
        let fields = Array(parts)
        guard (2...3).contains(fields.count) else { throw malformed }
        let serial = try ArraySlice<UInt8>(derEncoded: fields[0])
        guard !serial.isEmpty, serial.count <= 21 else { throw malformed }
        var entry = CertificateRevocationList.Entry(
            serialNumber: Certificate.SerialNumber(bytes: serial),
            revocationDate: try time(fields[1])
        )
        if fields.count == 3 {
            for found in try extensions(fields[2]) {
                switch found.oid {
                case CertificateRevocationList.reasonCodeOID:
                    let value = try DER.parse(found.value)
                    guard value.identifier == .enumerated, case .primitive(let bytes) = value.content, bytes.count == 1
                    else { throw malformed }
                    entry.reason = bytes.first.flatMap { CertificateRevocationList.Reason(rawValue: Int($0)) }
                case invalidityDate: continue
                default: try refuseIfCritical(found, of: "entry")
                }
            }
        }
        return entry
    }

    /// A SEQUENCE OF Extension, at most 64 of them.
    static func extensions(_ node: ASN1Node) throws -> [Certificate.Extension] {
        guard node.identifier == .sequence, case .constructed(let list) = node.content else { throw malformed }
        var found: [Certificate.Extension] = []
        for child in list {
            guard found.count < 64 else { throw malformed }
            found.append(try Certificate.Extension(derEncoded: child))
        }
        return found
    }

    static func refuseIfCritical(_ found: Certificate.Extension, of part: String) throws {
        guard found.critical else { return }
        throw PKIError(
            .unsupported,
            "the revocation list has a critical \(part) extension this reader does not know (\(found.oid)): a delta, "
                + "partitioned or indirect list is not a complete one"
        )
    }

    /// UTCTime or GeneralizedTime, to the second.
    static func time(_ node: ASN1Node) throws -> Date {
        var parts = DateComponents()
        switch node.identifier {
        case .utcTime:
            let time = try UTCTime(derEncoded: node)
            (parts.year, parts.month, parts.day) = (time.year, time.month, time.day)
            (parts.hour, parts.minute, parts.second) = (time.hours, time.minutes, time.seconds)
        case .generalizedTime:
            let time = try GeneralizedTime(derEncoded: node)
            (parts.year, parts.month, parts.day) = (time.year, time.month, time.day)
            (parts.hour, parts.minute, parts.second) = (time.hours, time.minutes, time.seconds)
        default:
            throw malformed
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        guard let date = calendar.date(from: parts) else { throw malformed }
        return date
    }
}
