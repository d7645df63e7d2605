// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import Testing

/// TFSP1 signed fields against the Python SDK (`Vectors/e3db-python/signed_fields.json`).
@Suite struct SignedFieldTests {
    struct File: Decodable {
        struct Case: Decodable { let key, value, salt, signed: String }
        let privateSigningKey, publicSigningKey: String
        let cases: [Case]
    }

    let file: File
    let key: SigningPrivateKey

    init() throws {
        file = try Vectors.load(File.self, "e3db-python/signed_fields.json")
        key = try SigningPrivateKey(base64URLEncoded: file.privateSigningKey)
    }

    @Test("signs byte-identically and verifies what Python signed")
    func bothDirections() throws {
        for item in file.cases {
            #expect(SignedField.sign(key: item.key, value: item.value, salt: item.salt, with: key) == item.signed)
            let verified = try SignedField.verify(key: item.key, signed: item.signed, publicKey: key.publicKey)
            #expect(verified == .init(salt: item.salt, value: item.value))
            _ = try SignedField.verify(
                key: item.key,
                signed: item.signed,
                publicKey: key.publicKey,
                expectedSalt: item.salt
            )
        }
    }

    @Test("another field name, value, salt or key does not verify")
    func mismatches() throws {
        let item = try #require(file.cases.first { $0.key == "secret" })
        let cases: [(String, String, SigningPublicKey, String?)] = [
            ("other", item.signed, key.publicKey, nil),
            (item.key, item.signed + "x", key.publicKey, nil),
            (item.key, item.signed, SigningPrivateKey().publicKey, nil),
            (item.key, item.signed, key.publicKey, "another-salt"),
        ]
        for (name, signed, publicKey, salt) in cases {
            let error = #expect(throws: CryptoError.self) {
                try SignedField.verify(key: name, signed: signed, publicKey: publicKey, expectedSalt: salt)
            }
            #expect(error?.code == .invalidSignature)
        }
    }

    @Test(
        "values that are not TFSP1 fields are format errors",
        arguments: [
            "plain text", "", "e7737e7c-1637-511e-8bab-93c4f3e26fd9;salt",
            "e7737e7c-1637-511e-8bab-93c4f3e26fd9;s;x;sig",
            "e7737e7c-1637-511e-8bab-93c4f3e26fd9;s;86;short",
        ]
    )
    func notSigned(value: String) {
        let error = #expect(throws: CryptoError.self) {
            try SignedField.verify(key: "k", signed: value, publicKey: key.publicKey)
        }
        #expect(error?.code == .invalidFormat)
    }
}
