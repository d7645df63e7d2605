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
        let (sealed, nonce) = newKey.wrapKey(dataKey, using: random)
        return EncryptedField(
            encryptedDataKey: sealed,
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
        guard let dataKey = accessKey.openWrappedKey(field.encryptedDataKey, nonce: field.dataKeyNonce) else {
            throw CryptoError(.authenticationFailed, "the field's data key did not open")
        }
        return dataKey
    }
}
