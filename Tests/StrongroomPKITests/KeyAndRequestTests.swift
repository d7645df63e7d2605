// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomPKI
import StrongroomTesting
import Testing
import X509

/// Key generation for every type, CSRs signed through a signer, parsed back and verified.
@Suite struct KeyAndRequestTests {
    static let algorithms: [KeyAlgorithm] = [.p256, .p384, .p521, .ed25519, .rsa(bits: 2048)]

    @Test(
        "each key type makes a CSR that parses back and verifies, and `openssl req -verify` accepts",
        arguments: algorithms
    )
    func requests(algorithm: KeyAlgorithm) async throws {
        let key = try algorithm.generatePrivateKey()
        #expect(try KeyAlgorithm(of: key.publicKey) == algorithm)
        var template = SigningRequestTemplate(commonName: "device 1")
        template.organization = "Example Ltd"
        template.country = "GB"
        template.emailAddress = "ops@example.com"
        template.dnsNames = ["device1.example.com"]
        template.uris = ["urn:strongroom:client:00000000-0000-0000-0000-000000000001"]
        template.ipAddresses = ["192.0.2.7", "2001:db8::1"]
        template.extendedKeyUsage = [.clientAuth]
        let csr = try template.signingRequest(signer: InMemorySigner(key))
        let parsed = try CertificateSigningRequest(encoded: Array(try csr.pemString().utf8))
        try parsed.verifySignature()
        #expect(parsed == csr)
        #expect(try CertificateSigningRequest(encoded: try csr.derBytes()) == csr)
        let names = try #require(try parsed.requestedExtensions.subjectAlternativeNames)
        #expect(names.count == 4)  // DNS, URI, two IPs (emailAddress is a subject attribute)
        #expect(try parsed.requestedExtensions.extendedKeyUsage?.contains(.clientAuth) == true)
        try await withTemporaryDirectory { directory in
            try Data(try csr.pemString().utf8).write(to: directory.appending(path: "request.csr"))
            let checked = try await openssl(["req", "-verify", "-noout", "-in", "request.csr"], in: directory)
            #expect(checked.status == 0, "\(algorithm): \(checked.output)")
        }
        // PKCS#8 out and back.
        let restored = try Certificate.PrivateKey(encoded: try key.pkcs8())
        #expect(restored.publicKey == key.publicKey)
    }

    @Test("a CSR whose signature was altered does not verify; garbage is an encoding error")
    func badRequests() throws {
        let csr = try SigningRequestTemplate(commonName: "x").signingRequest(signer: InMemorySigner(P256Key()))
        var der = try csr.derBytes()
        der[der.count - 5] ^= 0x01
        let altered = try CertificateSigningRequest(encoded: der)
        let error = #expect(throws: PKIError.self) { try altered.verifySignature() }
        #expect(error?.code == .badSignature)
        let garbage = #expect(throws: PKIError.self) { try CertificateSigningRequest(encoded: Array("nope".utf8)) }
        #expect(garbage?.code == .invalidEncoding)
        let empty = #expect(throws: PKIError.self) { try SigningRequestTemplate().subject() }
        #expect(empty?.code == .invalidParameters)
        var badCountry = SigningRequestTemplate(commonName: "x")
        badCountry.country = "GBR"
        #expect(throws: PKIError.self) { try badCountry.subject() }
        var badIP = SigningRequestTemplate(commonName: "x")
        badIP.ipAddresses = ["300.1.1.1"]
        #expect(throws: PKIError.self) { try badIP.alternativeNames() }
        #expect(throws: PKIError.self) { try KeyAlgorithm.rsa(bits: 1024).generatePrivateKey() }
    }
}

/// A P-256 key for tests.
func P256Key() -> Certificate.PrivateKey { try! KeyAlgorithm.p256.generatePrivateKey() }
