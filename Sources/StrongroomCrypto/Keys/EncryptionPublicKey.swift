// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client's X25519 public key, the `curve25519` value in E3DB's `public_key` objects.
///
/// Public keys are not secret; they compare and hash by value.
public struct EncryptionPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 raw key bytes.
    public let rawRepresentation: Data

    /// Creates a key from its 32 raw bytes.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when `rawRepresentation` is not 32 bytes.
    public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
        guard rawRepresentation.count == Sodium.Box.publicKeyByteCount else {
            throw .invalidKey("an X25519 public key is \(Sodium.Box.publicKeyByteCount) bytes")
        }
        self.rawRepresentation = Data(rawRepresentation)
    }

    /// Wraps bytes already known to be a key of the right length.
    init(validated bytes: Data) {
        precondition(bytes.count == Sodium.Box.publicKeyByteCount)
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
            throw .invalidKey("public key is not base64url", underlying: error)
        }
        try self.init(rawRepresentation: bytes)
    }

    /// The unpadded base64url form, as sent on the wire.
    public var base64URLEncoded: String { Base64URL.encode(rawRepresentation) }

    public var description: String { "EncryptionPublicKey(X25519, \(base64URLEncoded.prefix(8))…)" }
}
