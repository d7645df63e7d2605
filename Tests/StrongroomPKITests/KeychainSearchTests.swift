// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomPKI
import StrongroomTesting
import Testing
import X509

/// A custom identity type, as an app would define one.
private struct DeviceIdentity: KeychainIdentityConvertible, Equatable {
    var certificate: Certificate
    var privateKey: Certificate.PrivateKey
    init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws(KeychainError) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

@Suite struct KeychainSearchTests {
    /// A leaf identity issued by `ca` for a fresh key of `algorithm`.
    static func identity(_ name: String, by ca: TestCA, _ algorithm: KeyAlgorithm = .p256) throws -> DigitalIdentity {
        let key = try algorithm.generatePrivateKey()
        let csr = try SigningRequestTemplate(commonName: name).signingRequest(signer: InMemorySigner(key))
        return try DigitalIdentity(certificate: try ca.issue(csr), privateKey: key)
    }

    @Test(
        "search by partial attributes: certificates by label and issuer, keys by type, size and class, identities by issuer"
    )
    func search() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appending(path: "search.keychain")
            let keychain = try Keychain.encryptedFile(at: url, passphrase: "search", parameters: .minimum)
            let caA = try TestCA(name: "Issuer A")
            let caB = try TestCA(name: "Issuer B", algorithm: .p384)

            try keychain.generateKeyPair(.p256, tag: "ec-device")
            try keychain.generateKeyPair(.rsa(bits: 2048), tag: "rsa-device")
            try keychain.store(Curve25519.Signing.PrivateKey(), query: .key(for: "signing"))
            try keychain.store(SymmetricKey(size: .bits128), query: .key(for: "aes"))
            try keychain.store(caA.certificate, query: .certificate(for: "anchor"))
            var labelled = ItemQuery<SecCertificate>.certificate(for: "b-root")
            labelled.label = "anchor"
            try keychain.store(caB.certificate, query: labelled)
            let fromA = try Self.identity("alpha", by: caA)
            try keychain.store(fromA, query: .identity(for: "alpha"))
            try keychain.store(try Self.identity("beta", by: caB, .p384), query: .identity(for: "beta"))
            try keychain.store(try Self.identity("gamma", by: caA, .ed25519), query: .identity(for: "gamma"))
            try keychain.store("not a key", query: .credential(for: "alice", service: "api"))

            func tags(_ filter: ItemFilter<SecKey>) throws -> [String] {
                try keychain.items(matching: filter).compactMap { $0.identity.attributes["applicationTag"] }
            }
            #expect(try tags(.keys(type: .ec)) == ["ec-device", "ec-device"])  // private and public halves
            #expect(try tags(.keys(type: .ec, keyClass: .public)) == ["ec-device"])
            #expect(try tags(.keys(type: .rsa, sizeInBits: 2048, keyClass: .private)) == ["rsa-device"])
            #expect(try tags(.keys(type: .rsa, sizeInBits: 4096)).isEmpty)
            #expect(try tags(.keys(type: .ed25519)) == ["signing"])
            #expect(try tags(.keys(keyClass: .symmetric)) == ["aes"])
            #expect(try keychain.items(matching: ItemFilter<SecKey>.all).count == 6)
            let rsaPublic = try keychain.keys(
                matching: .keys(type: .rsa, keyClass: .public),
                as: Certificate.PublicKey.self
            )
            #expect(rsaPublic == [try #require(try keychain.keyPair(for: "rsa-device")).publicKey])
            // Keys of another kind are skipped.
            #expect(try keychain.keys(matching: .keys(type: .rsa), as: SymmetricKey.self).isEmpty)
            let aes = try #require(try keychain.info(for: ItemQuery<SecKey>.key(for: "aes"))?.keyAttributes)
            #expect(aes == KeyAttributes(keyType: .symmetric, keySizeInBits: 128, keyClass: .symmetric))

            #expect(
                try keychain.certificates(matching: .certificates(label: "anchor")) == [
                    caA.certificate, caB.certificate,
                ]
            )
            #expect(
                try keychain.certificates(matching: .certificates(subject: caB.certificate.subject)) == [
                    caB.certificate
                ]
            )
            #expect(try keychain.certificates(matching: .certificates(label: "none")).isEmpty)

            let issuedByA = try keychain.identities(matching: .identities(issuer: caA.certificate.subject))
            #expect(issuedByA.map { String(describing: $0.certificate.subject) } == ["CN=alpha", "CN=gamma"])
            #expect(try keychain.items(matching: .identities(issuer: caB.certificate.subject)).map(\.label) == ["beta"])
            #expect(try keychain.identities(matching: .identities(publicKey: fromA.certificate.publicKey)) == [fromA])
            #expect(try keychain.items(matching: .credentials(service: "api")).count == 1)
            #expect(try keychain.items(matching: .credentials(service: "other")).isEmpty)

            // A result names its item: ItemQuery(info) reads it.
            let info = try #require(try keychain.items(matching: .identities(label: "beta")).first)
            #expect(
                try keychain.retrieve(try #require(ItemQuery<SecIdentity>(info)))?.certificate.subject
                    == (try DistinguishedName { CommonName("beta") })
            )
            #expect(ItemQuery<SecKey>(info) == nil)

            // Descriptive attributes are sealed with the item: the issuer names are not in the file.
            let bytes = try Data(contentsOf: url)
            for needle in ["Issuer A", "Issuer B", "alpha", "ec-device", "keySizeInBits"] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) in the keychain file")
            }
        }
    }

    @Test("a custom KeychainIdentityConvertible type stores and loads; a key that does not match is refused both ways")
    func customIdentity() throws {
        let keychain = Keychain.inMemory()
        let ca = try TestCA()
        let issued = try Self.identity("device", by: ca)
        let device = try DeviceIdentity(certificate: issued.certificate, privateKey: issued.privateKey)
        try keychain.store(device, query: .identity(for: "device"))
        #expect(try keychain.retrieve(.identity(for: "device"), as: DeviceIdentity.self) == device)
        #expect(try keychain.retrieve(.identity(for: "device"))?.certificate == device.certificate)
        #expect(try keychain.retrieve(.identity(for: "none"), as: DeviceIdentity.self) == nil)

        let stranger = try DeviceIdentity(
            certificate: issued.certificate,
            privateKey: try KeyAlgorithm.p256.generatePrivateKey()
        )
        #expect(throws: KeychainError.self) { try keychain.store(stranger, query: .identity(for: "stranger")) }
        #expect(try keychain.info(for: .identity(for: "stranger")) == nil)
    }

    @Test("item information written before descriptive attributes existed still opens, with none")
    func legacyInformation() throws {
        let legacy = Data(
            #"{"identity":{"itemClass":"keys","attributes":{"applicationTag":"old"}},"creationDate":0,"modificationDate":0,"accessPolicy":"afterFirstUnlock","valueKind":"key.symmetric"}"#
                .utf8
        )
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let info = try decoder.decode(ItemInfo.self, from: legacy)
        #expect(info.attributes.isEmpty && info.keyAttributes == nil)
        #expect(ItemFilter<SecKey>.all.matches(info) && !ItemFilter<SecKey>.keys(type: .symmetric).matches(info))
    }
}
