// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An Ed25519 private key, as E3DB clients use for TSV1 request signatures, signed fields and documents.
///
/// E3DB stores it as libsodium does: 64 bytes, the 32-byte seed followed by the public key (86 base64url
/// characters). The buffer wipes itself.
public struct SigningPrivateKey: Sendable, CustomStringConvertible {
    /// seed ‖ public key (64 bytes).
    let secret: SecureBytes

    /// The matching public key.
    public let publicKey: SigningPublicKey

    /// Generates a new key pair from `random` (the system CSPRNG by default).
    public init(using random: some RandomSource = .system) {
        let seed = SecureRandom.bytes(count: Sodium.Sign.seedByteCount, using: random)
        self.init(validated: seed.withUnsafeBytes { Sodium.Sign.secretKey(fromSeed: $0) })
    }

    /// Derives the key pair from a 32-byte seed.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when the seed is not 32 bytes.
    public init(seed: SecureBytes) throws(CryptoError) {
        guard seed.count == Sodium.Sign.seedByteCount else {
            throw CryptoError(.invalidKey, "an Ed25519 seed is \(Sodium.Sign.seedByteCount) bytes")
        }
        self.init(validated: seed.withUnsafeBytes { Sodium.Sign.secretKey(fromSeed: $0) })
    }

    /// Imports the 64-byte form (seed ‖ public key), or a bare 32-byte seed.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for another length, or when the public half does not belong to
    ///   the seed.
    public init(rawRepresentation: SecureBytes) throws(CryptoError) {
        switch rawRepresentation.count {
        case Sodium.Sign.seedByteCount:
            try self.init(seed: rawRepresentation)
        case Sodium.Sign.secretKeyByteCount:
            try self.init(expanded: rawRepresentation)
        default:
            throw CryptoError(.invalidKey, "an Ed25519 private key is 64 bytes (or a 32-byte seed)")
        }
    }

    /// Imports the unpadded base64url form E3DB configurations hold (86 characters; 43 for a bare seed).
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for bad base64url, a wrong length or mismatched halves.
    public init(base64URLEncoded text: String) throws(CryptoError) {
        let secret: SecureBytes
        do {
            secret = try Base64URL.decodeSecret(text, padding: .allowed)
        } catch {
            throw CryptoError(.invalidKey, "signing key is not base64url", underlying: error)
        }
        try self.init(rawRepresentation: secret)
    }

    private init(expanded secret: SecureBytes) throws(CryptoError) {
        // Recompute the public half from the seed and insist it matches the stored one.
        let seed = secret.slice(0..<Sodium.Sign.seedByteCount)
        let recomputed = seed.withUnsafeBytes { Sodium.Sign.secretKey(fromSeed: $0) }
        guard recomputed == secret else {
            throw CryptoError(.invalidKey, "the public half of the signing key does not match its seed")
        }
        self.init(validated: secret)
    }

    /// Wraps a 64-byte key whose public half is known to match its seed.
    private init(validated secret: SecureBytes) {
        self.secret = secret
        let publicBytes = secret.withUnsafeBytes {
            Data(UnsafeRawBufferPointer(rebasing: $0[Sodium.Sign.seedByteCount...]))
        }
        self.publicKey = SigningPublicKey(checkedRawRepresentation: publicBytes)
    }

    /// The 64-byte form (seed ‖ public key), for storing the key somewhere safe.
    public var rawRepresentation: SecureBytes { secret }

    /// The unpadded base64url export of the 64-byte form, as E3DB configuration files hold it.
    ///
    /// - Warning: This string is the secret. Keep it out of logs.
    public var base64URLEncoded: String { Base64URL.encode(secret) }

    /// An Ed25519 signature (64 bytes) of `message`.
    public func signature(for message: some DataProtocol) -> Data {
        let bytes = Array(message)
        return bytes.withUnsafeBytes { signature(forRaw: $0) }
    }

    func signature(forRaw message: UnsafeRawBufferPointer) -> Data {
        Data(secret.withUnsafeBytes { Sodium.Sign.signature(for: message, secretKey: $0) })
    }

    public var description: String { "SigningPrivateKey(Ed25519, public \(publicKey.base64URLEncoded.prefix(8))…)" }
}
