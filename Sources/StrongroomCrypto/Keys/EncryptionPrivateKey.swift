// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client's X25519 private key. It opens access keys sealed to the client and seals access keys it shares.
///
/// The key lives in a buffer that wipes itself; its `description` shows only the public half's fingerprint.
public struct EncryptionPrivateKey: Sendable, CustomStringConvertible {
    let secret: SecureBytes

    /// The matching public key.
    public let publicKey: EncryptionPublicKey

    /// Generates a new key pair from `random` (the system CSPRNG by default), as `crypto_box_keypair` does.
    public init(using random: some RandomSource = .system) {
        self.init(validated: SecureRandom.bytes(count: Sodium.Box.secretKeyByteCount, using: random))
    }

    /// Imports a key from its 32 raw bytes.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when it is not 32 bytes.
    public init(rawRepresentation: SecureBytes) throws(CryptoError) {
        try self.init(secret: rawRepresentation)
    }

    /// Imports a key from its unpadded base64url form (43 characters), as E3DB configurations store it.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for bad base64url or a wrong length.
    public init(base64URLEncoded text: String) throws(CryptoError) {
        let secret: SecureBytes
        do {
            secret = try Base64URL.decodeSecret(text, padding: .allowed)
        } catch {
            throw CryptoError(.invalidKey, "private key is not base64url", underlying: error)
        }
        try self.init(secret: secret)
    }

    private init(secret: SecureBytes) throws(CryptoError) {
        guard secret.count == Sodium.Box.secretKeyByteCount else {
            throw CryptoError(.invalidKey, "an X25519 private key is \(Sodium.Box.secretKeyByteCount) bytes")
        }
        self.init(validated: secret)
    }

    private init(validated secret: SecureBytes) {
        self.secret = secret
        let publicBytes = secret.withUnsafeBytes { Sodium.Box.publicKey(forSecretKey: $0) }
        self.publicKey = EncryptionPublicKey(checkedRawRepresentation: Data(publicBytes))
    }

    /// The raw key bytes, for storing the key somewhere safe (a keychain item).
    public var rawRepresentation: SecureBytes { secret }

    /// The unpadded base64url export of the private key, as E3DB configuration files hold it.
    ///
    /// - Warning: This string is the secret. Keep it out of logs and wipe what you can.
    public var base64URLEncoded: String { Base64URL.encode(secret) }

    public var description: String { "EncryptionPrivateKey(X25519, public \(publicKey.base64URLEncoded.prefix(8))…)" }
}
