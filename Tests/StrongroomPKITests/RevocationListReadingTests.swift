// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import SwiftASN1
import Testing
import X509

@testable import StrongroomPKI

/// Reading a CA's revocation list: one OpenSSL's `ca -gencrl` made (`Fixtures/crl-openssl.pem`, from
/// `Fixtures/make-crl.sh`), this library's own lists, and lists that must be refused.
@Suite("Reading revocation lists")
struct RevocationListReadingTests {
    static func fixtureCA() throws -> (Certificate, Certificate.PrivateKey) { try RevocationListTests.fixtureCA() }

    @Test("OpenSSL's list: issuer, number, dates, entries and reasons as `openssl crl -text` shows them")
    func openSSLList() throws {
        let (ca, _) = try Self.fixtureCA()
        let pem = String(decoding: try RevocationListTests.fixture("crl-openssl.pem"), as: UTF8.self)
        let list = try CertificateRevocationList(pemEncoded: pem, issuer: ca)
        #expect(list.issuer == ca.subject)
        #expect(list.number == 16)
        let nextUpdate = try #require(list.nextUpdate)
        #expect(nextUpdate.timeIntervalSince(list.thisUpdate) == 36_500 * 86_400, "2126: GeneralizedTime")
        #expect(list.entries.map(\.serialNumber.bytes) == [[0x10, 0x01], [0x20, 0x02]])
        #expect(list.entries.map(\.reason) == [.keyCompromise, nil])
        #expect(list.entries.allSatisfy { $0.revocationDate == list.thisUpdate })
        #expect(list.contains(Certificate.SerialNumber(bytes: [0x10, 0x01])))
        #expect(!list.contains(Certificate.SerialNumber(bytes: [0x30, 0x03])))
    }

    @Test("this library's list reads back as it was made (DER and PEM)")
    func roundTrip() throws {
        let (ca, _) = try Self.fixtureCA()
        let made = try Self.knownList(thisUpdate: RevocationListTests.thisUpdate.addingTimeInterval(0.75))
        let read = try CertificateRevocationList(derEncoded: made.derBytes, issuer: ca)
        #expect(read == made)
        #expect(read.thisUpdate == RevocationListTests.thisUpdate, "whole seconds, as encoded")
        #expect(try CertificateRevocationList(pemEncoded: made.pemString, issuer: ca) == made)
        let empty = try Self.knownList(entries: [])
        #expect(try CertificateRevocationList(derEncoded: empty.derBytes, issuer: ca).entries.isEmpty)
    }

    @Test("another issuer, another key, a changed byte, a truncated or oversized list, a certificate: refused, typed")
    func refusals() throws {
        let (ca, _) = try Self.fixtureCA()
        let list = try Self.knownList()
        func code(_ bytes: [UInt8], _ issuer: Certificate = ca) -> PKIError.Code? {
            do {
                _ = try CertificateRevocationList(derEncoded: bytes, issuer: issuer)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code(list.derBytes, try TestCA(name: "another CA").certificate) == .nameMismatch)
        #expect(code(list.derBytes, try TestCA(name: "Strongroom CRL fixture CA").certificate) == .badSignature)
        // A revoked serial changed (inside the signed part), the signature's last byte changed.
        var serial = list.derBytes
        let at = try #require(Self.index(of: [0xF0, 0xAB, 0xAB], in: serial))
        serial[at + 1] ^= 0x01
        #expect(code(serial) == .badSignature)
        var signature = list.derBytes
        signature[signature.count - 1] ^= 0x01
        #expect(code(signature) == .badSignature)
        for cut in [0, 1, 10, list.derBytes.count / 2, list.derBytes.count - 1] {
            #expect(code(Array(list.derBytes.prefix(cut))) == .invalidEncoding, "cut at \(cut)")
        }
        #expect(
            code([UInt8](repeating: 0x30, count: CertificateRevocationList.maximumEncodedBytes + 1)) == .invalidEncoding
        )
        #expect(code(try ca.derBytes()) == .invalidEncoding, "a certificate is not a list")
        #expect(throws: PKIError.self) { try CertificateRevocationList(pemEncoded: try ca.pemString(), issuer: ca) }
    }

    @Test("a critical list or entry extension this reader does not know (a delta list) is refused: not a complete list")
    func unknownCriticalExtensions() throws {
        let (ca, key) = try Self.fixtureCA()
        let deltaIndicator = Certificate.Extension(oid: [2, 5, 29, 27], critical: true, value: [0x02, 0x01, 0x05])
        let unknownEntry = Certificate.Extension(
            oid: [1, 3, 6, 1, 4, 1, 99_999, 1],
            critical: true,
            value: [0x05, 0x00]
        )
        for (listExtension, entryExtension) in [(deltaIndicator, nil), (nil, unknownEntry)] {
            let der = try Self.signedList(
                ca: ca,
                key: key,
                listExtension: listExtension,
                entryExtension: entryExtension
            )
            #expect(throws: PKIError.self) { try CertificateRevocationList(derEncoded: der, issuer: ca) }
            do {
                _ = try CertificateRevocationList(derEncoded: der, issuer: ca)
            } catch {
                #expect(error.code == .unsupported, "\(error)")
            }
            // The same extension, not critical, is ignored.
            var relaxed = [listExtension, entryExtension]
            for index in relaxed.indices { relaxed[index]?.critical = false }
            let plain = try Self.signedList(ca: ca, key: key, listExtension: relaxed[0], entryExtension: relaxed[1])
            #expect(try CertificateRevocationList(derEncoded: plain, issuer: ca).entries.count == 1)
        }
    }

    /// The fixture CA's list of `entries` (the known-answer entries by default), number 42.
    static func knownList(
        entries: [CertificateRevocationList.Entry] = RevocationListTests.entries,
        thisUpdate: Date = RevocationListTests.thisUpdate
    ) throws -> CertificateRevocationList {
        let (ca, key) = try fixtureCA()
        return try CertificateRevocationList(
            issuer: ca,
            key: key,
            entries: entries,
            number: 42,
            thisUpdate: thisUpdate,
            nextUpdate: RevocationListTests.nextUpdate
        )
    }

    /// A list of one entry with the given extensions, signed by `key` (ECDSA with SHA-256).
    static func signedList(
        ca: Certificate,
        key: Certificate.PrivateKey,
        listExtension: Certificate.Extension?,
        entryExtension: Certificate.Extension?
    ) throws -> [UInt8] {
        let algorithm: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
        func time(_ coder: inout DER.Serializer) throws {
            try coder.serialize(try UTCTime(year: 2026, month: 1, day: 2, hours: 0, minutes: 0, seconds: 0))
        }
        var tbs = DER.Serializer()
        try tbs.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)
            try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(algorithm) }
            try coder.serialize(ca.subject)
            try time(&coder)
            try coder.serialize(try UTCTime(year: 2027, month: 1, day: 2, hours: 0, minutes: 0, seconds: 0))
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize([UInt8]([0x07])[...])
                    try time(&coder)
                    if let entryExtension {
                        try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(entryExtension) }
                    }
                }
            }
            if let listExtension {
                try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                    try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(listExtension) }
                }
            }
        }
        let signed = tbs.serializedBytes
        let signature = try key.sign(bytes: signed, signatureAlgorithm: .ecdsaWithSHA256)
        var list = DER.Serializer()
        try list.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(signed)
            try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(algorithm) }
            try coder.serialize(ASN1BitString(bytes: signature.rawRepresentation[...]))
        }
        return list.serializedBytes
    }

    static func index(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        haystack.indices.first { haystack[$0...].starts(with: needle) }
    }
}
