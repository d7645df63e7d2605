// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a client signs when it replaces its keys (the StrongroomClient article "Replacing a client's keys"): its ID,
/// the keys it leaves and the keys it takes, signed by both signing keys, so neither a thief of the old keys alone
/// nor a server alone can name new keys for it in the key log.
///
/// The signed bytes are `"strongroom/key-change/v1"` (24 bytes), the client's ID (16), the old X25519 and Ed25519
/// keys (32 each), then the new ones (32 each): 168 bytes. Each signature is a plain Ed25519 signature (64 bytes)
/// over them. The server checks both before it logs the change (a ``KeyLogEntry/Kind/keysChanged`` leaf naming the
/// old keys' leaf as its previous); it keeps the two signatures with the leaf and serves them with the client's key
/// history, where the client checks them again.
public struct KeyChangeStatement: Sendable, Hashable {
    /// The domain separation prefix.
    public static let context = Array("strongroom/key-change/v1".utf8)
    /// The length of the signed bytes.
    public static let byteCount = 24 + 16 + 4 * 32

    /// The client whose keys change.
    public let clientID: UUID
    /// The keys it leaves.
    public let old: (encryption: EncryptionPublicKey, signing: SigningPublicKey)
    /// The keys it takes.
    public let new: (encryption: EncryptionPublicKey, signing: SigningPublicKey)

    /// A statement that `clientID` replaces `old` with `new`.
    public init(
        clientID: UUID,
        old: (encryption: EncryptionPublicKey, signing: SigningPublicKey),
        new: (encryption: EncryptionPublicKey, signing: SigningPublicKey)
    ) {
        self.clientID = clientID
        self.old = old
        self.new = new
    }

    /// The 168 bytes both keys sign.
    public var signedBytes: Data {
        var bytes = Data(Self.context)
        bytes.reserveCapacity(Self.byteCount)
        withUnsafeBytes(of: clientID.uuid) { bytes.append(contentsOf: $0) }
        bytes.append(old.encryption.rawRepresentation)
        bytes.append(old.signing.rawRepresentation)
        bytes.append(new.encryption.rawRepresentation)
        bytes.append(new.signing.rawRepresentation)
        return bytes
    }

    /// The two signatures: by the old signing key, then by the new one.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` when a private key is not the statement's.
    public func signatures(
        old oldKey: SigningPrivateKey,
        new newKey: SigningPrivateKey
    ) throws(CryptoError)
        -> (old: Data, new: Data)
    {
        guard oldKey.publicKey == old.signing, newKey.publicKey == new.signing else {
            throw CryptoError(.invalidParameters, "a key change is signed by the signing keys it names")
        }
        let bytes = signedBytes
        return (oldKey.signature(for: bytes), newKey.signature(for: bytes))
    }

    /// Checks both signatures.
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when either is not a valid signature of its key over the
    ///   statement (a signature of another length included), or when the old and new keys share a key: a change
    ///   names two fresh keys.
    public func verify(old oldSignature: some DataProtocol, new newSignature: some DataProtocol) throws(CryptoError) {
        guard old.encryption != new.encryption, old.signing != new.signing else {
            throw CryptoError(.invalidSignature, "a key change replaces both keys")
        }
        let bytes = signedBytes
        guard oldSignature.count == 64, newSignature.count == 64,
            old.signing.isValidSignature(oldSignature, for: bytes),
            new.signing.isValidSignature(newSignature, for: bytes)
        else {
            throw CryptoError(.invalidSignature, "a key change is not signed by both the old and the new key")
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.signedBytes == rhs.signedBytes
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(signedBytes) }
}
