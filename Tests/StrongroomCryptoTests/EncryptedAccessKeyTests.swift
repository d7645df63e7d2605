// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// EAKs against the Python SDK (`Vectors/e3db-python/eaks.json`).
@Suite struct EncryptedAccessKeyTests {
    struct File: Decodable {
        struct Case: Decodable {
            let authorizerPrivateKey, authorizerPublicKey, readerPrivateKey, readerPublicKey, accessKey, nonce,
                wire: String
        }
        let cases: [Case]
    }

    let file: File

    init() throws { file = try Vectors.load(File.self, "e3db-python/eaks.json") }

    @Test("the reader opens what Python sealed, and Swift seals the same bytes")
    func bothDirections() throws {
        for item in file.cases {
            let authorizer = try EncryptionPrivateKey(base64URLEncoded: item.authorizerPrivateKey)
            let reader = try EncryptionPrivateKey(base64URLEncoded: item.readerPrivateKey)
            #expect(authorizer.publicKey.base64URLEncoded == item.authorizerPublicKey)
            let expected = try AccessKey(rawRepresentation: Base64URL.decodeSecret(item.accessKey))
            let eak = try EncryptedAccessKey(wireFormat: item.wire)
            #expect(try eak.open(authorizerPublicKey: authorizer.publicKey, readerPrivateKey: reader) == expected)
            let sealed = expected.sealed(
                to: reader.publicKey,
                by: authorizer,
                using: ReplayRandomSource([try b64(item.nonce)])
            )
            #expect(sealed.wireFormat == item.wire)
        }
    }

    @Test("only the right pair of keys opens it")
    func wrongKeys() throws {
        let item = try #require(file.cases.first)
        let eak = try EncryptedAccessKey(wireFormat: item.wire)
        let authorizer = try EncryptionPrivateKey(base64URLEncoded: item.authorizerPrivateKey)
        let stranger = EncryptionPrivateKey()
        let error = #expect(throws: CryptoError.self) {
            try eak.open(authorizerPublicKey: authorizer.publicKey, readerPrivateKey: stranger)
        }
        #expect(error?.code == .authenticationFailed)
        let reader = try EncryptionPrivateKey(base64URLEncoded: item.readerPrivateKey)
        let wrongAuthorizer = #expect(throws: CryptoError.self) {
            try eak.open(authorizerPublicKey: stranger.publicKey, readerPrivateKey: reader)
        }
        #expect(wrongAuthorizer?.code == .authenticationFailed)
    }

    @Test("malformed EAKs are format errors", arguments: ["", "abc", "a.b.c", "AAAA.AAAA"])
    func malformed(wire: String) {
        let error = #expect(throws: CryptoError.self) { try EncryptedAccessKey(wireFormat: wire) }
        #expect(error?.code == .invalidFormat)
    }

    @Test(
        "keys reject wrong lengths and encodings",
        arguments: ["", "AAAA", "not base64!", String(repeating: "A", count: 44)]
    )
    func badKeys(text: String) {
        #expect(throws: CryptoError.self) { try EncryptionPublicKey(base64URLEncoded: text) }
        #expect(throws: CryptoError.self) { try EncryptionPrivateKey(base64URLEncoded: text) }
        #expect(throws: CryptoError.self) { try SigningPrivateKey(base64URLEncoded: text) }
        #expect(throws: CryptoError.self) { try SigningPublicKey(base64URLEncoded: text) }
    }

    @Test("a signing key whose halves do not match is rejected")
    func mismatchedSigningKey() throws {
        let one = SigningPrivateKey()
        let other = SigningPrivateKey()
        let mixed =
            one.rawRepresentation.slice(0..<32).withUnsafeBytes { Array($0) }
            + other.publicKey.rawRepresentation
        let error = #expect(throws: CryptoError.self) {
            try SigningPrivateKey(rawRepresentation: SecureBytes(copying: mixed))
        }
        #expect(error?.code == .invalidKey)
    }

    @Test("private keys never print their secret")
    func redacted() {
        let key = EncryptionPrivateKey()
        let signing = SigningPrivateKey()
        #expect(!String(describing: key).contains(key.base64URLEncoded))
        #expect(!String(describing: signing).contains(signing.base64URLEncoded.prefix(20)))
        #expect(!String(describing: AccessKey()).isEmpty)
    }
}
