// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An access key sealed to a reader's ``HybridPublicKey``: HPKE base mode (RFC 9180 as `draft-ietf-hpke-pq` extends
/// it) with KEM X-Wing (0x647a), HKDF-SHA256 and ChaCha20-Poly1305, signed by the authorizer's Ed25519 key, since HPKE
/// has no authenticated mode for post-quantum KEMs (the article "Post-quantum sharing").
///
/// The HPKE `info` binds the wrap to where it belongs (``Context``): another writer, user, reader, type or key
/// generation opens nothing. The signature covers `"strongroom/hybrid-eak-signature/v1"`, the info, the encapsulated
/// key and the ciphertext. Wire form: base64url (unpadded) of the encapsulated key (1,120 bytes), the ciphertext (the
/// 32-byte key and its 16-byte tag) and the signature (64 bytes) — exactly 1,232 bytes. Opening checks, in order: the
/// length, the signature, then decapsulation and the AEAD tag; so a stored or received wrap costs no decapsulation
/// unless its authorizer signed it.
public struct HybridAccessKeyWrap: Sendable, Hashable {
    /// Where a wrap belongs: every field is in the HPKE `info`.
    public struct Context: Sendable, Hashable {
        /// The records' writer.
        public var writerID: UUID
        /// The records' user.
        public var userID: UUID
        /// The reader the key is sealed to.
        public var readerID: UUID
        /// The record type.
        public var type: String
        /// The key's generation (1 for a type never rotated).
        public var generation: UInt64

        /// A context.
        public init(writerID: UUID, userID: UUID, readerID: UUID, type: String, generation: UInt64) {
            (self.writerID, self.userID, self.readerID) = (writerID, userID, readerID)
            (self.type, self.generation) = (type, generation)
        }

        /// The HPKE `info`: `"strongroom/hybrid-eak/v1"`, the three IDs (16 bytes each), the generation (8 bytes,
        /// big-endian) and SHA-256 of the type's UTF-8: 112 bytes.
        public var info: Data {
            var info = Data(HybridAccessKeyWrap.infoContext)
            info.reserveCapacity(112)
            for id in [writerID, userID, readerID] { withUnsafeBytes(of: id.uuid) { info.append(contentsOf: $0) } }
            withUnsafeBytes(of: generation.bigEndian) { info.append(contentsOf: $0) }
            info.append(contentsOf: SHA256.hash(data: Data(type.utf8)))
            return info
        }
    }

    static let infoContext = Array("strongroom/hybrid-eak/v1".utf8)
    static let signatureContext = Array("strongroom/hybrid-eak-signature/v1".utf8)
    static let suite = HPKE.Ciphersuite(kem: .XWingMLKEM768X25519, kdf: .HKDF_SHA256, aead: .chaChaPoly)

    /// The length of the encapsulated key.
    public static let encapsulatedKeyByteCount = 1_120
    /// The length of the ciphertext: the 32-byte key and its tag.
    public static let ciphertextByteCount = 48
    /// The length of the authorizer's signature.
    public static let signatureByteCount = 64
    /// The length of the whole wrap.
    public static let byteCount = encapsulatedKeyByteCount + ciphertextByteCount + signatureByteCount

    /// The HPKE encapsulated key.
    public let encapsulatedKey: Data
    /// The sealed access key.
    public let ciphertext: Data
    /// The authorizer's Ed25519 signature.
    public let signature: Data

    /// Seals `key` to `reader` for `context`, signed by `authorizer`.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when HPKE refuses the reader's key.
    public init(
        sealing key: AccessKey,
        to reader: HybridPublicKey,
        context: Context,
        signedBy authorizer: SigningPrivateKey
    ) throws(CryptoError) {
        let info = context.info
        do {
            var sender = try HPKE.Sender(recipientKey: reader.key, ciphersuite: Self.suite, info: info)
            ciphertext = try key.rawRepresentation.withUnsafeBytes { try sender.seal(Data($0)) }
            encapsulatedKey = sender.encapsulatedKey
        } catch {
            throw CryptoError(.invalidKey, "the access key could not be sealed to that X-Wing key")
        }
        signature = authorizer.signature(for: Self.signed(info, encapsulatedKey, ciphertext))
    }

    /// A wrap from its wire form (base64url of 1,232 bytes).
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for anything else (checked before any decoding work beyond
    ///   the length).
    public init(wireFormat text: String) throws(CryptoError) {
        guard text.utf8.count == Base64URL.encodedLength(of: Self.byteCount),
            let bytes = try? Base64URL.decode(text), bytes.count == Self.byteCount
        else { throw CryptoError(.invalidFormat, "a hybrid EAK is base64url of \(Self.byteCount) bytes") }
        let enc = Self.encapsulatedKeyByteCount
        let sealed = enc + Self.ciphertextByteCount
        encapsulatedKey = Data(bytes.prefix(enc))
        ciphertext = Data(bytes[bytes.startIndex + enc..<bytes.startIndex + sealed])
        signature = Data(bytes.suffix(Self.signatureByteCount))
    }

    /// The wire form.
    public var wireFormat: String { Base64URL.encode(encapsulatedKey + ciphertext + signature) }

    /// The access key, after the authorizer's signature over this wrap and `context` verifies.
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when `authorizer` did not sign this wrap for `context` (another
    ///   writer, user, reader, type or generation, or any byte changed); ``CryptoError/Code/authenticationFailed``
    ///   when it does not open with `reader` (decapsulation gives another secret, or the tag fails).
    public func open(
        with reader: HybridPrivateKey,
        context: Context,
        authorizer: SigningPublicKey
    ) throws(CryptoError) -> AccessKey {
        guard encapsulatedKey.count == Self.encapsulatedKeyByteCount, ciphertext.count == Self.ciphertextByteCount,
            signature.count == Self.signatureByteCount
        else { throw CryptoError(.invalidFormat, "a hybrid EAK's parts have fixed lengths") }
        let info = context.info
        guard authorizer.isValidSignature(signature, for: Self.signed(info, encapsulatedKey, ciphertext)) else {
            throw CryptoError(.invalidSignature, "the hybrid EAK is not signed by its authorizer for this context")
        }
        var opened: Data
        do {
            var recipient = try HPKE.Recipient(
                privateKey: reader.key,
                ciphersuite: Self.suite,
                info: info,
                encapsulatedKey: encapsulatedKey
            )
            opened = try recipient.open(ciphertext)
        } catch {
            throw CryptoError(.authenticationFailed, "the hybrid EAK does not open with this reader's key")
        }
        defer { opened.resetBytes(in: 0..<opened.count) }
        return try AccessKey(rawRepresentation: SecureBytes(copying: opened))
    }

    /// The bytes the authorizer signs.
    static func signed(_ info: Data, _ encapsulatedKey: Data, _ ciphertext: Data) -> Data {
        Data(signatureContext) + info + encapsulatedKey + ciphertext
    }
}
