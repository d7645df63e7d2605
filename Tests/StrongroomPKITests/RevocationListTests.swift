// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomPKI
import StrongroomTesting
import SwiftASN1
import Testing
import X509

/// Certificate revocation lists, checked against OpenSSL (`openssl crl -CAfile … -text`) and a known-answer file.
///
/// Fixtures: `crl-ca.key`/`crl-ca.pem` were made by OpenSSL 3 (`openssl req -x509 -newkey ec -pkeyopt
/// ec_paramgen_curve:P-256 -nodes -subj "/CN=Strongroom CRL fixture CA" -days 36500`); `crl-known.der` is this
/// library's list for the fixed inputs below (run with `STRONGROOM_RECORD_FIXTURES=1` to write it again). Its signed
/// part must not change, and OpenSSL must accept its signature and read the same entries, dates and extensions.
@Suite("Certificate revocation lists")
struct RevocationListTests {
    static let thisUpdate = Date(timeIntervalSince1970: 1_767_312_000)  // 2026-01-02T00:00:00Z
    static let nextUpdate = Date(timeIntervalSince1970: 2_556_144_000)  // 2051-01-01T00:00:00Z: GeneralizedTime
    static let entries = [
        CertificateRevocationList.Entry(
            serialNumber: Certificate.SerialNumber(bytes: [0x01]),
            revocationDate: Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z
        ),
        CertificateRevocationList.Entry(
            serialNumber: Certificate.SerialNumber(bytes: [0xF0] + Array(repeating: 0xAB, count: 19)),
            revocationDate: Date(timeIntervalSince1970: 1_767_326_400),
            reason: .superseded
        ),
    ]

    static func fixtureCA() throws -> (Certificate, Certificate.PrivateKey) {
        let certificate = try Certificate(pemEncoded: String(decoding: try fixture("crl-ca.pem"), as: UTF8.self))
        let key = try Certificate.PrivateKey(pemEncoded: String(decoding: try fixture("crl-ca.key"), as: UTF8.self))
        return (certificate, key)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    @Test("the signed part for fixed inputs matches the known-answer file, and OpenSSL verifies and reads the file")
    func knownAnswer() async throws {
        let (ca, key) = try Self.fixtureCA()
        let list = try CertificateRevocationList(
            issuer: ca,
            key: key,
            entries: Self.entries,
            number: 42,
            thisUpdate: Self.thisUpdate,
            nextUpdate: Self.nextUpdate
        )
        if ProcessInfo.processInfo.environment["STRONGROOM_RECORD_FIXTURES"] == "1" {
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(
                path: "Fixtures/crl-known.der"
            )
            try Data(list.derBytes).write(to: path)
        }
        let known = try Self.fixture("crl-known.der")
        #expect(
            try CertificateRevocationList.signedPart(of: list.derBytes)
                == CertificateRevocationList.signedPart(of: known)
        )
        try await withTemporaryDirectory { directory in
            try Data(known).write(to: directory.appending(path: "known.der"))
            try Data(try Self.fixture("crl-ca.pem")).write(to: directory.appending(path: "ca.pem"))
            let read = try await openssl(
                ["crl", "-inform", "DER", "-in", "known.der", "-CAfile", "ca.pem", "-noout", "-text"],
                in: directory
            )
            #expect(read.status == 0, "\(read.output)")
            #expect(read.output.contains("verify OK"), "\(read.output)")
            for expected in [
                "Version 2 (0x1)", "Issuer: CN = Strongroom CRL fixture CA", "Last Update: Jan  2 00:00:00 2026 GMT",
                "Next Update: Jan  1 00:00:00 2051 GMT", "X509v3 CRL Number:", "42",
                "68:89:8F:BF:12:63:59:23:C1:25:4E:23:11:26:5D:35:87:84:BE:FF", "Serial Number: 01",
                "Revocation Date: Jan  2 03:04:05 2026 GMT", "Serial Number: F0ABABABABABABABABABABABABABABABABABABAB",
                "Superseded", "Signature Algorithm: ecdsa-with-SHA256",
            ] {
                #expect(read.output.contains(expected), "missing \(expected) in \(read.output)")
            }
        }
    }

    @Test(
        "fresh lists from P-256, P-384 and Ed25519 CAs verify with OpenSSL; an empty list has no entries",
        arguments: [KeyAlgorithm.p256, .p384, .ed25519]
    )
    func freshLists(algorithm: KeyAlgorithm) async throws {
        let ca = try TestCA(algorithm: algorithm)
        let now = Date()
        for entries in [Self.entries, []] {
            let list = try CertificateRevocationList(
                issuer: ca.certificate,
                key: ca.key,
                entries: entries,
                number: 1,
                thisUpdate: now,
                nextUpdate: now.addingTimeInterval(3600)
            )
            #expect(list.pemString.hasPrefix("-----BEGIN X509 CRL-----\n"))
            try await withTemporaryDirectory { directory in
                try Data(list.pemString.utf8).write(to: directory.appending(path: "list.pem"))
                try Data(try ca.certificate.pemString().utf8).write(to: directory.appending(path: "ca.pem"))
                let read = try await openssl(
                    ["crl", "-in", "list.pem", "-CAfile", "ca.pem", "-noout", "-text"],
                    in: directory
                )
                #expect(read.status == 0 && read.output.contains("verify OK"), "\(algorithm): \(read.output)")
                #expect(read.output.contains("No Revoked Certificates") == entries.isEmpty, "\(read.output)")
            }
        }
    }

    @Test("a key that is not the CA's, an RSA key, a backwards validity or a negative number is refused")
    func refusals() throws {
        let (ca, key) = try Self.fixtureCA()
        let other = try KeyAlgorithm.p256.generatePrivateKey()
        let now = Date()
        func make(
            _ key: Certificate.PrivateKey,
            _ issuer: Certificate,
            number: Int64 = 1,
            next: TimeInterval = 60
        )
            throws
        {
            _ = try CertificateRevocationList(
                issuer: issuer,
                key: key,
                entries: [],
                number: number,
                thisUpdate: now,
                nextUpdate: now.addingTimeInterval(next)
            )
        }
        #expect(throws: PKIError.self) { try make(other, ca) }
        #expect(throws: PKIError.self) { try make(key, ca, number: -1) }
        #expect(throws: PKIError.self) { try make(key, ca, next: 0) }
        let rsa = try TestCA(algorithm: .rsa(bits: 2048))
        let error = #expect(throws: PKIError.self) { try make(rsa.key, rsa.certificate) }
        #expect(error?.code == .unsupported)
        #expect(throws: PKIError.self) { try CertificateRevocationList.signedPart(of: [0x30, 0x03, 0x02, 0x01]) }
    }
}
