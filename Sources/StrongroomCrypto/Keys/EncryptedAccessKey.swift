// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An access key sealed to one reader (an "EAK"), in the wire form `b64url(box).b64url(nonce)`.
///
/// The box is 48 bytes (32-byte key + 16-byte MAC) and the nonce 24 bytes, so the wire form is 64 + 1 + 32
/// characters.
public struct EncryptedAccessKey: Sendable, Hashable, CustomStringConvertible {
    /// MAC ‖ ciphertext of the access key (48 bytes).
    public let ciphertext: Data
    /// The 24-byte box nonce.
    public let nonce: Data

    init(validatedCiphertext ciphertext: Data, nonce: Data) {
        self.ciphertext = ciphertext
        self.nonce = nonce
    }

    /// Parses the wire form `ciphertext.nonce`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` unless there are exactly two base64url parts of 48 and 24
    ///   bytes.
    public init(wireFormat: String) throws(CryptoError) {
        let parts = wireFormat.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw CryptoError(
                .invalidFormat,
                "an encrypted access key has two dot-separated parts, found \(parts.count)"
            )
        }
        let ciphertext: Data
        let nonce: Data
        do {
            ciphertext = try Base64URL.decode(parts[0], padding: .allowed)
            nonce = try Base64URL.decode(parts[1], padding: .allowed)
        } catch {
            throw CryptoError(.invalidFormat, "an encrypted access key part is not base64url", underlying: error)
        }
        guard ciphertext.count == Sodium.SecretBox.keyByteCount + Sodium.Box.macByteCount,
            nonce.count == Sodium.Box.nonceByteCount
        else {
            throw CryptoError(.invalidFormat, "an encrypted access key has a 48-byte box and a 24-byte nonce")
        }
        self.init(validatedCiphertext: ciphertext, nonce: nonce)
    }

    /// The wire form, `b64url(ciphertext).b64url(nonce)`.
    public var wireFormat: String { Base64URL.encode(ciphertext) + "." + Base64URL.encode(nonce) }

    /// Opens the access key as `reader`, given the public key of the client that sealed it.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when the box was altered, or the keys are not the
    ///   pair it was sealed with.
    public func open(
        authorizerPublicKey: EncryptionPublicKey,
        readerPrivateKey: EncryptionPrivateKey
    ) throws(CryptoError) -> AccessKey {
        var opened = false
        let secret = SecureBytes(count: Sodium.SecretBox.keyByteCount) { output in
            opened = ciphertext.withUnsafeBytes { box in
                nonce.withUnsafeBytes { nonceBytes in
                    authorizerPublicKey.rawRepresentation.withUnsafeBytes { senderKey in
                        readerPrivateKey.secret.withUnsafeBytes { readerKey in
                            Sodium.Box.open(
                                box,
                                nonce: nonceBytes,
                                senderPublicKey: senderKey,
                                recipientSecretKey: readerKey,
                                into: output
                            )
                        }
                    }
                }
            }
        }
        guard opened else {
            throw CryptoError(.authenticationFailed, "the access key did not open: altered, or sealed for other keys")
        }
        return try AccessKey(rawRepresentation: secret)
    }

    public var description: String { "EncryptedAccessKey(\(wireFormat.prefix(8))…)" }
}
