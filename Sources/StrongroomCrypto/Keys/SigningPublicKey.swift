// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An Ed25519 public key, the `ed25519` value in E3DB's `signing_key` objects.
public struct SigningPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 raw key bytes.
    public let rawRepresentation: Data

    /// Creates a key from its 32 raw bytes.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when it is not 32 bytes.
    public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
        guard rawRepresentation.count == Sodium.Sign.publicKeyByteCount else {
            throw .invalidKey("an Ed25519 public key is \(Sodium.Sign.publicKeyByteCount) bytes")
        }
        self.rawRepresentation = Data(rawRepresentation)
    }

    /// Wraps bytes already known to be a key of the right length.
    init(validated bytes: Data) {
        precondition(bytes.count == Sodium.Sign.publicKeyByteCount)
        self.rawRepresentation = bytes
    }

    /// Creates a key from its unpadded base64url form (43 characters).
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for bad base64url or a wrong length.
    public init(base64URLEncoded text: String) throws(CryptoError) {
        let bytes: Data
        do {
            bytes = try Base64URL.decode(text, padding: .allowed)
        } catch {
            throw .invalidKey("signing key is not base64url", underlying: error)
        }
        try self.init(rawRepresentation: bytes)
    }

    /// The unpadded base64url form, as sent on the wire.
    public var base64URLEncoded: String { Base64URL.encode(rawRepresentation) }

    /// Whether `signature` is a valid Ed25519 signature of `message` under this key.
    ///
    /// An invalid signature is an expected outcome, so this returns `false` rather than throwing; the
    /// higher-level `verify` functions turn it into ``CryptoError/Code/invalidSignature``.
    public func isValidSignature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        let signatureBytes = Array(signature)
        let messageBytes = Array(message)
        return signatureBytes.withUnsafeBytes { sig in
            messageBytes.withUnsafeBytes { msg in
                rawRepresentation.withUnsafeBytes { key in
                    Sodium.Sign.isValid(signature: sig, for: msg, publicKey: key)
                }
            }
        }
    }

    public var description: String { "SigningPublicKey(Ed25519, \(base64URLEncoded.prefix(8))…)" }
}
