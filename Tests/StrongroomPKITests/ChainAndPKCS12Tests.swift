// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomPKI
import StrongroomTesting
import SwiftASN1
import Testing
import X509

/// Chains validate against custom anchors with typed failures; PKCS#12 files from OpenSSL import, and ours
/// export, round-trip and satisfy `openssl`; the ConfidoIOS flow runs through the keychain end to end.
@Suite struct ChainAndPKCS12Tests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    @Test("validation: good chain, expired, not yet valid, untrusted, wrong usage, wrong name, revoked")
    func validation() async throws {
        let ca = try TestCA()
        let key = try KeyAlgorithm.p256.generatePrivateKey()
        var template = SigningRequestTemplate(commonName: "client")
        template.uris = ["urn:strongroom:client:1"]
        template.dnsNames = ["client.example.com"]
        let csr = try template.signingRequest(signer: InMemorySigner(key))
        let leaf = try ca.issue(csr)
        let validator = ChainValidator(anchors: [ca.certificate])
        let chain = try await validator.validate(
            leaf,
            purpose: .clientAuth,
            name: .uri("urn:strongroom:client:1"),
            at: TestCA.referenceTime
        )
        #expect(chain.count == 2 && chain.last == ca.certificate)
        _ = try await validator.validate(leaf, name: .host("client.example.com"), at: TestCA.referenceTime)

        func failure(_ body: () async throws -> Void) async -> PKIError.Code? {
            do {
                try await body()
                return nil
            } catch let error as PKIError {
                #expect(!error.message.isEmpty)
                return error.code
            } catch {
                return nil
            }
        }
        let expired = try ca.issue(csr, start: TestCA.referenceTime.addingTimeInterval(-7200), lifetime: 3600)
        #expect(await failure { _ = try await validator.validate(expired, at: TestCA.referenceTime) } == .expired)
        let early = try ca.issue(csr, start: TestCA.referenceTime.addingTimeInterval(3600))
        #expect(await failure { _ = try await validator.validate(early, at: TestCA.referenceTime) } == .notYetValid)
        let stranger = try TestCA(name: "Somebody else")
        #expect(
            await failure {
                _ = try await ChainValidator(anchors: [stranger.certificate]).validate(leaf, at: TestCA.referenceTime)
            }
                == .untrustedIssuer
        )
        #expect(
            await failure { _ = try await validator.validate(leaf, purpose: .serverAuth, at: TestCA.referenceTime) }
                == .wrongUsage
        )
        #expect(
            await failure {
                _ = try await validator.validate(leaf, name: .uri("urn:strongroom:client:2"), at: TestCA.referenceTime)
            }
                == .nameMismatch
        )
        #expect(
            await failure {
                _ = try await validator.validate(leaf, name: .host("other.example.com"), at: TestCA.referenceTime)
            } == .nameMismatch
        )
        let revoking = ChainValidator(
            anchors: [ca.certificate],
            revoked: [.init(issuer: leaf.issuer, serialNumber: leaf.serialNumber)]
        )
        #expect(await failure { _ = try await revoking.validate(leaf, at: TestCA.referenceTime) } == .revoked)
    }

    @Test(
        "OpenSSL's PKCS#12 files import: default, -legacy and -macalg sha512, EC and RSA",
        arguments: [
            "ec-default", "ec-legacy", "ec-sha512", "rsa-default", "rsa-legacy", "rsa-sha512",
        ]
    )
    func imports(name: String) throws {
        let identity = try PKCS12.import(try Self.fixture("\(name).p12"), passphrase: "fixture pass")
        #expect(identity.privateKey.publicKey == identity.certificate.publicKey)
        let ca = try CertificateBundle.certificates(from: try Self.fixture("ca.pem"))
        #expect(identity.chain == ca)
        #expect(identity.certificate.alternativeNameStrings.first?.hasPrefix("URI:urn:strongroom:client:") == true)
        let wrong = #expect(throws: PKIError.self) {
            try PKCS12.import(try Self.fixture("\(name).p12"), passphrase: "nope")
        }
        #expect(wrong?.code == .wrongPassphrase)
    }

    @Test("a serial prints as two hex digits per byte, as ca list prints and ca revoke reads it")
    func serialFormat() throws {
        let serial = Certificate.SerialNumber(bytes: [0xCC, 0x0F, 0x87, 0x00])
        #expect(serial.hexString == "cc0f8700")
        #expect(String(describing: serial) != serial.hexString)  // swift-certificates' own form drops the zero
        let certificate = try #require(try CertificateBundle.certificates(from: try Self.fixture("ca.pem")).first)
        #expect(certificate.summary.contains("serial:      \(certificate.serialNumber.hexString)\n"))
    }

    @Test("garbage is not PKCS#12; a mismatched key and certificate never reach BoringSSL")
    func refusals() throws {
        let garbage = #expect(throws: PKIError.self) { try PKCS12.import(Array("not a p12".utf8), passphrase: "x") }
        #expect(garbage?.code == .invalidEncoding)
        let identity = try PKCS12.import(try Self.fixture("ec-default.p12"), passphrase: "fixture pass")
        let other = try KeyAlgorithm.p256.generatePrivateKey()
        let mismatch = #expect(throws: PKIError.self) {
            try PKCS12Identity(certificate: identity.certificate, privateKey: other)
        }
        #expect(mismatch?.code == .keyMismatch)
        var forged = identity
        forged.privateKey = other  // bypasses the initialiser's check: export must still refuse, not crash
        let refused = #expect(throws: PKIError.self) { try PKCS12.export(forged, passphrase: "x") }
        #expect(refused?.code == .keyMismatch)
    }

    @Test(
        "the ConfidoIOS flow: key pair in the keychain, CSR, certificate from a CA, identity, .p12 out and into a second keychain; openssl accepts every artefact",
        arguments: [KeyAlgorithm.p256, .rsa(bits: 2048), .ed25519]
    )
    func confidoFlow(algorithm: KeyAlgorithm) async throws {
        try await withTemporaryDirectory { directory in
            let keychainURL = directory.appending(path: "first.keychain")
            let keychain = try Keychain.encryptedFile(at: keychainURL, passphrase: "first", parameters: .minimum)
            let pair = try keychain.generateKeyPair(algorithm, tag: "device")
            #expect(try keychain.keyPair(for: "device")?.publicKey == pair.publicKey)
            #expect(pair.spkiSHA256.count == 32)

            var template = SigningRequestTemplate(commonName: "device")
            template.organization = "Example Ltd"
            template.emailAddresses = ["device@example.com"]
            template.uris = ["urn:strongroom:client:device"]
            template.extendedKeyUsage = [.clientAuth]
            let csr = try template.signingRequest(signer: pair)
            try Data(try csr.pemString().utf8).write(to: directory.appending(path: "device.csr"))
            let verified = try await openssl(["req", "-verify", "-noout", "-in", "device.csr"], in: directory)
            #expect(verified.status == 0, "\(verified.output)")

            let ca = try TestCA()
            let certificate = try ca.issue(try CertificateSigningRequest(encoded: try csr.derBytes()))
            try Data(try ca.certificate.pemString().utf8).write(to: directory.appending(path: "ca.pem"))
            try Data(try certificate.pemString().utf8).write(to: directory.appending(path: "device.pem"))
            let chain = try await openssl(
                [
                    "verify", "-purpose", "sslclient", "-attime", "\(Int(TestCA.referenceTime.timeIntervalSince1970))",
                    "-CAfile", "ca.pem", "device.pem",
                ],
                in: directory
            )
            #expect(chain.status == 0, "\(chain.output)")
            _ = try await ChainValidator(anchors: [ca.certificate]).validate(
                certificate,
                purpose: .clientAuth,
                at: TestCA.referenceTime
            )

            let key = try #require(try keychain.retrieve(.privateKey(for: "device"), as: Certificate.PrivateKey.self))
            let identity = try PKCS12Identity(certificate: certificate, chain: [ca.certificate], privateKey: key)
            try keychain.store(identity, label: "device")
            let p12 = try PKCS12.export(identity, passphrase: "export pass")
            try Data(p12).write(to: directory.appending(path: "device.p12"))
            let info = try await openssl(
                ["pkcs12", "-in", "device.p12", "-passin", "pass:export pass", "-nokeys", "-info"],
                in: directory
            )
            #expect(info.status == 0 && info.output.contains("BEGIN CERTIFICATE"), "\(info.output)")

            if algorithm != .ed25519 {  // BoringSSL does not hand Ed25519 keys back out of a .p12
                let second = try Keychain.encryptedFile(
                    at: directory.appending(path: "second.keychain"),
                    passphrase: "second",
                    parameters: .minimum
                )
                try second.store(try PKCS12.import(p12, passphrase: "export pass"), label: "device")
                let restored = try #require(try second.retrieve(.identity(for: "device")))
                #expect(restored.certificate == certificate && restored.privateKey.publicKey == pair.publicKey)
                #expect(
                    try second.retrieve(.certificate(for: "device.chain.1"), as: Certificate.self) == ca.certificate
                )
            }
            // The keychain file holds no private key in the clear.
            let pem = try key.serializeAsPEM()
            let line = String(pem.pemString.split(separator: "\n")[1])
            let keychains = [keychainURL, directory.appending(path: "second.keychain")]
            for file in keychains where FileManager.default.fileExists(atPath: file.path) {
                let bytes = try Data(contentsOf: file)
                #expect(bytes.range(of: Data(line.utf8)) == nil, "\(file.lastPathComponent) holds the key's PEM")
                let der = try key.pkcs8().withUnsafeBytes { Data($0) }
                #expect(bytes.range(of: der.prefix(48).suffix(24)) == nil, "\(file.lastPathComponent) holds the key")
            }
        }
    }
}
