// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccessKey {
    /// `previous` sealed under this key (`crypto_secretbox`, a random 24-byte nonce), in an EAK's wire form: the link
    /// from one access-key generation to the one before it (docs/design/Revocation.md). Whoever holds the newest key
    /// opens every older one through the links; whoever holds only an older key (a revoked reader) opens none.
    public func sealingLink(
        to previous: AccessKey,
        using random: some RandomSource = .system
    ) -> EncryptedAccessKey {
        let nonce = SecureRandom.data(count: Sodium.SecretBox.nonceByteCount, using: random)
        let box = previous.secret.withUnsafeBytes { message in
            nonce.withUnsafeBytes { nonce in
                secret.withUnsafeBytes { key in Sodium.SecretBox.seal(message, nonce: nonce, key: key) }
            }
        }
        return EncryptedAccessKey(validatedCiphertext: Data(box), nonce: nonce)
    }

    /// The previous generation's key from `link` (made by ``sealingLink(to:using:)`` with this key), in a buffer
    /// that wipes itself.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when the link was not sealed under this key, or altered.
    public func openLink(_ link: EncryptedAccessKey) throws(CryptoError) -> AccessKey {
        var opened = false
        let previous = SecureBytes(count: Sodium.SecretBox.keyByteCount) { output in
            opened = link.ciphertext.withUnsafeBytes { box in
                link.nonce.withUnsafeBytes { nonce in
                    secret.withUnsafeBytes { key in Sodium.SecretBox.open(box, nonce: nonce, key: key, into: output) }
                }
            }
        }
        guard opened else { throw CryptoError(.authenticationFailed, "the key link did not open under this key") }
        return try AccessKey(rawRepresentation: previous)
    }
}
