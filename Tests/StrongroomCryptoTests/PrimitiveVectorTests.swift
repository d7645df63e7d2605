// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Testing

@testable import StrongroomCrypto

/// Raw libsodium primitives against PyNaCl 1.6.2 (`Vectors/pynacl/primitives.json`).
@Suite struct PrimitiveVectorTests {
    struct File: Decodable {
        struct SecretBoxCase: Decodable { let key, nonce, message, box: String }
        struct BoxCase: Decodable {
            let senderPrivateKey, senderPublicKey, recipientPrivateKey, recipientPublicKey, nonce, message, box: String
        }
        struct Ed25519: Decodable {
            struct Case: Decodable { let message, signature: String }
            let privateKey, publicKey: String
            let cases: [Case]
        }
        struct Blake: Decodable { let message, digest: String }
        struct Argon: Decodable {
            let password, salt, key: String
            let iterations: UInt64
            let memoryBytes: Int
        }
        struct Keys: Decodable {
            let encryptionPrivateKey, encryptionPublicKey, signingPrivateKey, signingSeed, signingPublicKey: String
        }
        let secretbox: [SecretBoxCase]
        let box: BoxCase
        let ed25519: Ed25519
        let blake2b256: [Blake]
        let argon2id: Argon
        let keys: Keys
    }

    let file: File

    init() throws { file = try Vectors.load(File.self, "pynacl/primitives.json") }

    @Test("secretbox matches PyNaCl in both directions")
    func secretbox() throws {
        for item in file.secretbox {
            let (key, nonce, message, box) = try (b64(item.key), b64(item.nonce), b64(item.message), b64(item.box))
            let sealed = message.withUnsafeBytes { m in
                nonce.withUnsafeBytes { n in key.withUnsafeBytes { k in Sodium.SecretBox.seal(m, nonce: n, key: k) } }
            }
            #expect(Data(sealed) == box)
            var opened = [UInt8](repeating: 0, count: message.count)
            let ok = opened.withUnsafeMutableBytes { out in
                box.withUnsafeBytes { c in
                    nonce.withUnsafeBytes { n in
                        key.withUnsafeBytes { k in Sodium.SecretBox.open(c, nonce: n, key: k, into: out) }
                    }
                }
            }
            #expect(ok)
            #expect(Data(opened) == message)
        }
    }

    @Test("box opens PyNaCl's crypto_box and derives the same public keys")
    func box() throws {
        let item = file.box
        let recipient = try EncryptionPrivateKey(base64URLEncoded: item.recipientPrivateKey)
        let sender = try EncryptionPrivateKey(base64URLEncoded: item.senderPrivateKey)
        #expect(recipient.publicKey.base64URLEncoded == item.recipientPublicKey)
        #expect(sender.publicKey.base64URLEncoded == item.senderPublicKey)
        let box = try b64(item.box)
        var opened = [UInt8](repeating: 0, count: box.count - 16)
        let ok = opened.withUnsafeMutableBytes { out in
            box.withUnsafeBytes { c in
                try! b64(item.nonce).withUnsafeBytes { n in
                    sender.publicKey.rawRepresentation.withUnsafeBytes { pk in
                        recipient.rawRepresentation.withUnsafeBytes { sk in
                            Sodium.Box.open(c, nonce: n, senderPublicKey: pk, recipientSecretKey: sk, into: out)
                        }
                    }
                }
            }
        }
        #expect(ok)
        #expect(Data(opened) == (try b64(item.message)))
    }

    @Test("Ed25519 signatures are byte-identical to PyNaCl's")
    func ed25519() throws {
        let key = try SigningPrivateKey(base64URLEncoded: file.ed25519.privateKey)
        #expect(key.publicKey.base64URLEncoded == file.ed25519.publicKey)
        for item in file.ed25519.cases {
            let message = try b64(item.message)
            #expect(Base64URL.encode(key.signature(for: message)) == item.signature)
            #expect(key.publicKey.isValidSignature(try b64(item.signature), for: message))
        }
    }

    @Test("BLAKE2b-256 matches PyNaCl")
    func blake2b() throws {
        for item in file.blake2b256 {
            let digest = try b64(item.message).withUnsafeBytes { Sodium.Sign.blake2b256($0) }
            #expect(Base64URL.encode(Data(digest)) == item.digest)
        }
    }

    @Test("Argon2id matches PyNaCl's argon2id.kdf")
    func argon2id() throws {
        let item = file.argon2id
        let key = try Argon2id.deriveKey(
            fromPassword: item.password,
            salt: try b64(item.salt),
            parameters: .init(iterations: item.iterations, memoryBytes: item.memoryBytes)
        )
        #expect(Base64URL.encode(key) == item.key)
    }

    @Test("key encodings round-trip and derive the same public halves")
    func keys() throws {
        let keys = file.keys
        let encryption = try EncryptionPrivateKey(base64URLEncoded: keys.encryptionPrivateKey)
        #expect(encryption.publicKey.base64URLEncoded == keys.encryptionPublicKey)
        #expect(encryption.base64URLEncoded == keys.encryptionPrivateKey)
        let signing = try SigningPrivateKey(base64URLEncoded: keys.signingPrivateKey)
        #expect(signing.publicKey.base64URLEncoded == keys.signingPublicKey)
        #expect(signing.base64URLEncoded == keys.signingPrivateKey)
        let fromSeed = try SigningPrivateKey(base64URLEncoded: keys.signingSeed)
        #expect(fromSeed.base64URLEncoded == keys.signingPrivateKey)
    }
}
