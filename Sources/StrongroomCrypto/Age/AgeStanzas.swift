// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two recipient stanzas (c2sp.org/age): `X25519` and age 1.3's `mlkem768x25519` (HPKE base mode, KEM X-Wing
/// 0x647a, HKDF-SHA256, ChaCha20-Poly1305, info `age-encryption.org/mlkem768x25519`, empty aad). Each wraps the
/// 16-byte file key; its body is that key and its 16-byte tag.
enum AgeStanzas {
    static let fileKeyByteCount = 16
    static let bodyByteCount = 32
    static let x25519Type = "X25519"
    static let hybridType = "mlkem768x25519"
    // Made at each use: a `Data` kept in a static is reported as a leak by LeakSanitizer (the fuzz target).
    static var x25519Label: Data { Data("age-encryption.org/v1/X25519".utf8) }
    static var hybridInfo: Data { Data("age-encryption.org/mlkem768x25519".utf8) }
    static let hybridSuite = HPKE.Ciphersuite(kem: .XWingMLKEM768X25519, kdf: .HKDF_SHA256, aead: .chaChaPoly)
    /// X-Wing's encapsulation: ML-KEM-768's ciphertext, then the X25519 share.
    static let hybridEncByteCount = 1_120

    /// The stanza that wraps `fileKey` to `recipient`.
    static func wrap(_ fileKey: SecureBytes, to recipient: AgeRecipient) throws(CryptoError) -> AgeStanza {
        do {
            switch recipient {
            case .x25519(let key):
                let ephemeral = Curve25519.KeyAgreement.PrivateKey()
                let share = ephemeral.publicKey.rawRepresentation
                let shared = try ephemeral.sharedSecretFromKeyAgreement(
                    with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: key.rawRepresentation)
                )
                let wrapKey = try x25519WrapKey(shared, share: share, recipient: key.rawRepresentation)
                let sealed = try fileKey.withUnsafeBytes { bytes in
                    try ChaChaPoly.seal(Data(bytes), using: wrapKey, nonce: ChaChaPoly.Nonce(data: Data(count: 12)))
                }
                return AgeStanza(
                    arguments: [x25519Type, AgeBase64.encode(share)],
                    body: sealed.ciphertext + sealed.tag
                )
            case .hybrid(let key):
                var sender = try HPKE.Sender(recipientKey: key.key, ciphersuite: hybridSuite, info: hybridInfo)
                let body = try fileKey.withUnsafeBytes { try sender.seal(Data($0)) }
                return AgeStanza(arguments: [hybridType, AgeBase64.encode(sender.encapsulatedKey)], body: body)
            }
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(.invalidKey, "the file key could not be wrapped to that recipient", underlying: error)
        }
    }

    /// The file key `stanza` wraps for `identity`: nil when the stanza is of another type or does not open with
    /// this identity.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a stanza of the identity's type that is malformed: another
    ///   number of arguments, a share or encapsulation of another length or in non-canonical base64, a body that is
    ///   not 32 bytes, or an X25519 share of small order (its shared secret would be all zeros).
    static func unwrap(_ stanza: AgeStanza, with identity: AgeIdentity) throws(CryptoError) -> SecureBytes? {
        switch identity.key {
        case .x25519(let secret):
            guard stanza.arguments.first == x25519Type else { return nil }
            guard stanza.arguments.count == 2, let share = AgeBase64.decode(stanza.arguments[1]), share.count == 32,
                stanza.body.count == bodyByteCount
            else { throw CryptoError(.invalidFormat, "an X25519 stanza is malformed") }
            guard EncryptionPublicKey(checkedRawRepresentation: share).isUsableForKeyAgreement else {
                throw CryptoError(.invalidFormat, "an X25519 stanza's share is of small order")
            }
            return try? secret.withUnsafeBytes { scalar throws -> SecureBytes in
                let own = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(scalar))
                let shared = try own.sharedSecretFromKeyAgreement(
                    with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: share)
                )
                let wrapKey = try x25519WrapKey(shared, share: share, recipient: own.publicKey.rawRepresentation)
                let box = try ChaChaPoly.SealedBox(
                    nonce: ChaChaPoly.Nonce(data: Data(count: 12)),
                    ciphertext: stanza.body.prefix(fileKeyByteCount),
                    tag: stanza.body.suffix(16)
                )
                var opened = try ChaChaPoly.open(box, using: wrapKey)
                defer { opened.resetBytes(in: 0..<opened.count) }
                return SecureBytes(copying: opened)
            }
        case .hybrid(let key):
            guard stanza.arguments.first == hybridType else { return nil }
            guard stanza.arguments.count == 2, let enc = AgeBase64.decode(stanza.arguments[1]),
                enc.count == hybridEncByteCount, stanza.body.count == bodyByteCount
            else { throw CryptoError(.invalidFormat, "an mlkem768x25519 stanza is malformed") }
            guard EncryptionPublicKey(checkedRawRepresentation: enc.suffix(32)).isUsableForKeyAgreement else {
                throw CryptoError(.invalidFormat, "an mlkem768x25519 stanza's X25519 share is of small order")
            }
            do {
                var recipient = try HPKE.Recipient(
                    privateKey: key.key,
                    ciphersuite: hybridSuite,
                    info: hybridInfo,
                    encapsulatedKey: enc
                )
                var opened = try recipient.open(stanza.body)
                defer { opened.resetBytes(in: 0..<opened.count) }
                return SecureBytes(copying: opened)
            } catch {
                return nil  // another recipient's stanza (ML-KEM's implicit rejection gives another secret)
            }
        }
    }

    private static func x25519WrapKey(
        _ shared: SharedSecret,
        share: Data,
        recipient: Data
    ) throws -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(
            using: SHA256.self,
            salt: share + recipient,
            sharedInfo: x25519Label,
            outputByteCount: 32
        )
    }
}
