// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import Testing

@testable import StrongroomCrypto

/// Hybrid (X-Wing) access-key wraps: swift-crypto's HPKE against `draft-ietf-hpke-pq`'s vector of exactly this
/// suite, and the wrap's binding, signature and bounds.
@Suite struct HybridAccessKeyWrapTests {
    struct File: Decodable {
        struct Vector: Decodable {
            struct Encryption: Decodable { let aad, ct, nonce, pt: String }
            struct Export: Decodable {
                let exporter_context: String
                let L: Int
                let exported_value: String
            }
            let kem_id, kdf_id, aead_id: Int
            let info, skRm, pkRm, enc, shared_secret: String
            let encryptions: [Encryption]
            let exports: [Export]
        }
        let vectors: [Vector]
    }

    static func hex(_ text: String) throws -> Data { Data(try #require(hexBytes(text))) }

    /// Whether `body` throws a ``CryptoError`` of `code`.
    static func fails(with code: StrongroomCrypto.CryptoError.Code, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as StrongroomCrypto.CryptoError {
            return error.code == code
        } catch {
            return false
        }
    }

    @Test(
        "the draft-ietf-hpke-pq vector of X-Wing, HKDF-SHA256, ChaCha20-Poly1305: keys, secret, every message, exports"
    )
    func hpkePQVector() throws {
        let file = try Vectors.load(File.self, "hpke-pq/xwing-sha256-chacha20poly1305.json")
        let vector = try #require(file.vectors.first)
        #expect(vector.kem_id == 0x647a && vector.kdf_id == 1 && vector.aead_id == 3)
        let reader = try HybridPrivateKey(seed: SecureBytes(copying: try Self.hex(vector.skRm)))
        #expect(reader.publicKey.rawRepresentation == (try Self.hex(vector.pkRm)))
        #expect(try HybridPublicKey(rawRepresentation: try Self.hex(vector.pkRm)) == reader.publicKey)
        let enc = try Self.hex(vector.enc)
        #expect(enc.count == HybridAccessKeyWrap.encapsulatedKeyByteCount)
        let secret = try reader.key.decapsulate(enc)
        #expect(secret.withUnsafeBytes { Data($0) } == (try Self.hex(vector.shared_secret)))
        var recipient = try HPKE.Recipient(
            privateKey: reader.key,
            ciphersuite: HybridAccessKeyWrap.suite,
            info: try Self.hex(vector.info),
            encapsulatedKey: enc
        )
        #expect(vector.encryptions.count == 10)
        for encryption in vector.encryptions {
            let opened = try recipient.open(try Self.hex(encryption.ct), authenticating: try Self.hex(encryption.aad))
            #expect(opened == (try Self.hex(encryption.pt)))
        }
        for export in vector.exports {
            let value = try recipient.exportSecret(
                context: try Self.hex(export.exporter_context),
                outputByteCount: export.L
            )
            #expect(value.withUnsafeBytes { Data($0) } == (try Self.hex(export.exported_value)))
        }
    }

    static let context = HybridAccessKeyWrap.Context(
        writerID: UUID(),
        userID: UUID(),
        readerID: UUID(),
        type: "notes",
        generation: 3
    )

    @Test("a wrap opens for its reader, context and authorizer; 1,232 bytes; a wire round trip keeps it")
    func roundTrip() throws {
        let (reader, authorizer, key) = (HybridPrivateKey(), SigningPrivateKey(), AccessKey())
        let wrap = try HybridAccessKeyWrap(
            sealing: key,
            to: reader.publicKey,
            context: Self.context,
            signedBy: authorizer
        )
        #expect(wrap.encapsulatedKey.count == 1_120 && wrap.ciphertext.count == 48 && wrap.signature.count == 64)
        let parsed = try HybridAccessKeyWrap(wireFormat: wrap.wireFormat)
        let decoded = try Base64URL.decode(wrap.wireFormat)
        #expect(parsed == wrap && decoded.count == HybridAccessKeyWrap.byteCount)
        #expect(try parsed.open(with: reader, context: Self.context, authorizer: authorizer.publicKey) == key)
        // The seed alone restores the reader's key.
        let restored = try HybridPrivateKey(seed: reader.seedRepresentation)
        #expect(try wrap.open(with: restored, context: Self.context, authorizer: authorizer.publicKey) == key)
        #expect(Self.context.info.count == 112)
    }

    /// A fresh key sealed for ``context`` to a fresh reader by a fresh authorizer.
    static func sealed() throws -> (HybridPrivateKey, SigningPrivateKey, HybridAccessKeyWrap) {
        let (reader, authorizer) = (HybridPrivateKey(), SigningPrivateKey())
        let wrap = try HybridAccessKeyWrap(
            sealing: AccessKey(),
            to: reader.publicKey,
            context: context,
            signedBy: authorizer
        )
        return (reader, authorizer, wrap)
    }

    @Test("re-targeted to another writer, user, reader, type or generation, or another authorizer: invalidSignature")
    func retargeted() throws {
        let (reader, authorizer, wrap) = try Self.sealed()
        var others: [HybridAccessKeyWrap.Context] = []
        for change in 0..<5 {
            var other = Self.context
            switch change {
            case 0: other.writerID = UUID()
            case 1: other.userID = UUID()
            case 2: other.readerID = UUID()
            case 3: other.type = "notes2"
            default: other.generation = 4
            }
            others.append(other)
        }
        for other in others {
            #expect(
                Self.fails(with: .invalidSignature) {
                    _ = try wrap.open(with: reader, context: other, authorizer: authorizer.publicKey)
                }
            )
        }
        #expect(
            Self.fails(with: .invalidSignature) {
                _ = try wrap.open(with: reader, context: Self.context, authorizer: SigningPrivateKey().publicKey)
            }
        )
        // Signed by its authorizer but sealed to someone else: the tag fails.
        #expect(
            Self.fails(with: .authenticationFailed) {
                _ = try wrap.open(with: HybridPrivateKey(), context: Self.context, authorizer: authorizer.publicKey)
            }
        )
    }

    @Test("a truncated, oversized or altered wrap, and a corrupted encapsulation, are refused with typed errors")
    func malformed() throws {
        let (reader, authorizer, wrap) = try Self.sealed()
        let bytes = try Base64URL.decode(wrap.wireFormat)
        for bad in [
            Base64URL.encode(bytes.dropLast()), Base64URL.encode(bytes + [0]), "", "!" + wrap.wireFormat.dropFirst(),
            String(repeating: "A", count: 100_000),
        ] {
            #expect(Self.fails(with: .invalidFormat) { _ = try HybridAccessKeyWrap(wireFormat: bad) })
        }
        // A changed byte anywhere breaks the signature, checked before any decapsulation.
        for offset in [0, 1_119, 1_120, 1_167, 1_168, 1_231] {
            var changed = bytes
            changed[offset] ^= 0x01
            let altered = try HybridAccessKeyWrap(wireFormat: Base64URL.encode(changed))
            #expect(
                Self.fails(with: .invalidSignature) {
                    _ = try altered.open(with: reader, context: Self.context, authorizer: authorizer.publicKey)
                }
            )
        }
        // The authorizer itself signing a corrupted encapsulation (its ML-KEM part, then its X25519 part): no key.
        for offset in [10, 1_100] {
            var enc = wrap.encapsulatedKey
            enc[offset] ^= 0x01
            let signature = authorizer.signature(
                for: HybridAccessKeyWrap.signed(Self.context.info, enc, wrap.ciphertext)
            )
            let resigned = try HybridAccessKeyWrap(wireFormat: Base64URL.encode(enc + wrap.ciphertext + signature))
            #expect(
                Self.fails(with: .authenticationFailed) {
                    _ = try resigned.open(with: reader, context: Self.context, authorizer: authorizer.publicKey)
                }
            )
        }
    }

    @Test("an X-Wing public key of another length, or whose ML-KEM key fails the modulus check, is invalidKey")
    func invalidPublicKeys() throws {
        let valid = HybridPrivateKey().publicKey.rawRepresentation
        for bad in [Data(valid.dropLast()), valid + [0], Data(), Data(repeating: 0xFF, count: 1_216)] {
            #expect(Self.fails(with: .invalidKey) { _ = try HybridPublicKey(rawRepresentation: bad) })
        }
        #expect(Self.fails(with: .invalidKey) { _ = try HybridPrivateKey(seed: SecureBytes(copying: [1, 2, 3])) })
    }

    struct LeafFile: Decodable {
        struct Leaf: Decodable {
            let clientID, signingSeed, signed, signature, entry: String
            let time: UInt64
        }
        let leaves: [Leaf]
    }

    @Test(
        "a published X-Wing key's signed bytes, signature and key log leaf match Python's; the leaf decodes and binds"
    )
    func hybridKeyLeafVectors() throws {
        let pq = try #require(
            try Vectors.load(File.self, "hpke-pq/xwing-sha256-chacha20poly1305.json").vectors.first
        )
        let key = try HybridPublicKey(rawRepresentation: try Self.hex(pq.pkRm))
        let file = try Vectors.load(LeafFile.self, "keylog/hybrid-key.json")
        #expect(file.leaves.count == 2)
        for leaf in file.leaves {
            let id = try #require(hexBytes(leaf.clientID)).withUnsafeBytes {
                UUID(uuid: $0.loadUnaligned(as: uuid_t.self))
            }
            let signer = try SigningPrivateKey(seed: SecureBytes(copying: try Base64URL.decode(leaf.signingSeed)))
            let signed = HybridKeyLeaf.signedBytes(clientID: id, key: key)
            #expect(Base64URL.encode(signed) == leaf.signed)
            #expect(Base64URL.encode(signer.signature(for: signed)) == leaf.signature)
            let entry = try HybridKeyLeaf.entry(clientID: id, key: key, time: leaf.time)
            #expect(Base64URL.encode(entry.encoded) == leaf.entry)
            let decoded = try KeyLogEntry(decoding: try Base64URL.decode(leaf.entry))
            #expect(decoded == entry && HybridKeyLeaf.binds(decoded, clientID: id, key: key))
            #expect(!HybridKeyLeaf.binds(decoded, clientID: UUID(), key: key))
            #expect(!HybridKeyLeaf.binds(decoded, clientID: id, key: HybridPrivateKey().publicKey))
        }
    }
}
