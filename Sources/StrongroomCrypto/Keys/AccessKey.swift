// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The symmetric access key (AK) of one `(writer, user, record type)`: a 32-byte `crypto_secretbox` key.
///
/// It encrypts the data key of every field and file of that type. It never leaves the client in the clear:
/// it travels only as an ``EncryptedAccessKey`` sealed to one reader.
public struct AccessKey: Sendable, Equatable, CustomStringConvertible {
    let secret: SecureBytes

    /// Generates a new random access key.
    public init(using random: some RandomSource = .system) {
        self.secret = SecureRandom.bytes(count: Sodium.SecretBox.keyByteCount, using: random)
    }

    /// Wraps 32 raw key bytes.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when the key is not 32 bytes.
    public init(rawRepresentation: SecureBytes) throws(CryptoError) {
        guard rawRepresentation.count == Sodium.SecretBox.keyByteCount else {
            throw CryptoError(.invalidKey, "an access key is \(Sodium.SecretBox.keyByteCount) bytes")
        }
        self.secret = rawRepresentation
    }

    /// The raw key bytes, for a local cache kept somewhere safe.
    public var rawRepresentation: SecureBytes { secret }

    /// Seals this key to `reader`, as `authorizer` (box: X25519-XSalsa20-Poly1305, random 24-byte nonce).
    ///
    /// The authorizer is whoever stores the EAK: the writer for its own key and ordinary shares, or the
    /// authorizer client when it shares on a writer's behalf. The reader opens it with the authorizer's public key.
    public func sealed(
        to reader: EncryptionPublicKey,
        by authorizer: EncryptionPrivateKey,
        using random: some RandomSource = .system
    ) -> EncryptedAccessKey {
        let nonce = SecureRandom.data(count: Sodium.Box.nonceByteCount, using: random)
        let box = secret.withUnsafeBytes { message in
            nonce.withUnsafeBytes { nonceBytes in
                reader.rawRepresentation.withUnsafeBytes { readerKey in
                    authorizer.secret.withUnsafeBytes { senderKey in
                        Sodium.Box.seal(
                            message,
                            nonce: nonceBytes,
                            recipientPublicKey: readerKey,
                            senderSecretKey: senderKey
                        )
                    }
                }
            }
        }
        return EncryptedAccessKey(validatedCiphertext: .init(box), nonce: nonce)
    }

    public static func == (lhs: AccessKey, rhs: AccessKey) -> Bool { lhs.secret == rhs.secret }

    public var description: String { "AccessKey(redacted)" }
}
