// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FieldCipher {
    /// Whether `field`'s data key opens under `accessKey` (its value is not decrypted).
    public static func isSealed(_ field: EncryptedField, under accessKey: AccessKey) -> Bool {
        (try? openDataKey(field, with: accessKey)) != nil
    }

    /// The same field with its data key sealed under `newKey` instead of `oldKey` (a fresh nonce): the value's
    /// ciphertext and nonce are kept, so the plaintext, and a signature over it, stay the same. Only the 32-byte
    /// data key is decrypted, into a buffer that wipes itself.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when the data key does not open under `oldKey`.
    public static func rewrap(
        _ field: EncryptedField,
        from oldKey: AccessKey,
        to newKey: AccessKey,
        using random: some RandomSource = .system
    ) throws(CryptoError)
        -> EncryptedField
    {
        let dataKey = try openDataKey(field, with: oldKey)
        let nonce = SecureRandom.bytes(count: Sodium.SecretBox.nonceByteCount, using: random).withUnsafeBytes {
            Data($0)
        }
        let sealed = dataKey.withUnsafeBytes { message in
            nonce.withUnsafeBytes { nonce in
                newKey.secret.withUnsafeBytes { key in Sodium.SecretBox.seal(message, nonce: nonce, key: key) }
            }
        }
        return EncryptedField(
            encryptedDataKey: Data(sealed),
            dataKeyNonce: nonce,
            encryptedValue: field.encryptedValue,
            valueNonce: field.valueNonce
        )
    }

    /// `field`'s data key, opened under `accessKey`, in a buffer that wipes itself.
    static func openDataKey(
        _ field: EncryptedField,
        with accessKey: AccessKey
    ) throws(CryptoError)
        -> SecureBytes
    {
        var opened = false
        let dataKey = SecureBytes(count: Sodium.SecretBox.keyByteCount) { output in
            opened = field.encryptedDataKey.withUnsafeBytes { box in
                field.dataKeyNonce.withUnsafeBytes { nonce in
                    accessKey.secret.withUnsafeBytes { key in
                        Sodium.SecretBox.open(box, nonce: nonce, key: key, into: output)
                    }
                }
            }
        }
        guard opened else { throw CryptoError(.authenticationFailed, "the field's data key did not open") }
        return dataKey
    }
}
