// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encrypts and decrypts E3DB record fields (`EDK.EDKN.EF.EFN`), exactly as Tozny's SDKs do.
///
/// Every field gets a fresh random data key and two fresh nonces, so equal values encrypt differently.
/// Field names are not encrypted.
public enum FieldCipher {
    /// Encrypts one field value.
    public static func encrypt(
        _ value: String,
        with accessKey: AccessKey,
        using random: some RandomSource = .system
    ) -> EncryptedField {
        var utf8 = Array(value.utf8)
        defer { Wipe.bytes(&utf8) }
        return utf8.withUnsafeBytes { encrypt(bytes: $0, with: accessKey, using: random) }
    }

    /// Encrypts raw bytes as a field value (E3DB values are UTF-8 text; this is for callers that hold bytes).
    public static func encrypt(
        bytes value: UnsafeRawBufferPointer,
        with accessKey: AccessKey,
        using random: some RandomSource = .system
    ) -> EncryptedField {
        // One draw for the data key and both nonces (in that order): one getrandom(2) call instead of three.
        let keyCount = Sodium.SecretBox.keyByteCount
        let nonceCount = Sodium.SecretBox.nonceByteCount
        let draw = SecureRandom.bytes(count: keyCount + 2 * nonceCount, using: random)
        let dataKey = draw.slice(0..<keyCount)
        let (valueNonce, dataKeyNonce) = draw.withUnsafeBytes { bytes in
            (
                Data(UnsafeRawBufferPointer(rebasing: bytes[keyCount..<(keyCount + nonceCount)])),
                Data(UnsafeRawBufferPointer(rebasing: bytes[(keyCount + nonceCount)...]))
            )
        }
        let encryptedValue = dataKey.withUnsafeBytes { key in
            valueNonce.withUnsafeBytes { nonce in Sodium.SecretBox.seal(value, nonce: nonce, key: key) }
        }
        let encryptedDataKey = dataKey.withUnsafeBytes { message in
            dataKeyNonce.withUnsafeBytes { nonce in
                accessKey.secret.withUnsafeBytes { key in Sodium.SecretBox.seal(message, nonce: nonce, key: key) }
            }
        }
        return EncryptedField(
            encryptedDataKey: Data(encryptedDataKey),
            dataKeyNonce: dataKeyNonce,
            encryptedValue: Data(encryptedValue),
            valueNonce: valueNonce
        )
    }

    /// Decrypts one field into its UTF-8 text.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when any part was altered or the access key is
    ///   wrong; ``CryptoError/Code/invalidFormat`` when the plaintext is not UTF-8.
    public static func decrypt(_ field: EncryptedField, with accessKey: AccessKey) throws(CryptoError) -> String {
        let plaintext = try decryptBytes(field, with: accessKey)
        return try plaintext.withUnsafeBytes { bytes throws(CryptoError) in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CryptoError(.invalidFormat, "the decrypted field is not UTF-8 text")
            }
            return text
        }
    }

    /// Decrypts one field into its raw bytes, kept in a buffer that wipes itself.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when any part was altered or the key is wrong.
    public static func decryptBytes(
        _ field: EncryptedField,
        with accessKey: AccessKey
    ) throws(CryptoError)
        -> SecureBytes
    {
        let dataKey = try openDataKey(field, with: accessKey)
        var opened = false
        let plaintext = SecureBytes(count: field.encryptedValue.count - Sodium.SecretBox.macByteCount) { output in
            opened = field.encryptedValue.withUnsafeBytes { box in
                field.valueNonce.withUnsafeBytes { nonce in
                    dataKey.withUnsafeBytes { key in Sodium.SecretBox.open(box, nonce: nonce, key: key, into: output) }
                }
            }
        }
        guard opened else { throw CryptoError(.authenticationFailed, "the field value did not open") }
        return plaintext
    }

    /// Encrypts every value of a record's `data` map; the keys stay as they are.
    public static func encrypt(
        fields: [String: String],
        with accessKey: AccessKey,
        using random: some RandomSource = .system
    ) -> [String: String] {
        fields.mapValues { encrypt($0, with: accessKey, using: random).wireFormat }
    }

    /// Decrypts every value of a record's encrypted `data` map.
    ///
    /// - Throws: the first failure of ``EncryptedField/init(wireFormat:)`` or ``decrypt(_:with:)``; no partial
    ///   map is returned.
    public static func decrypt(
        fields: [String: String],
        with accessKey: AccessKey
    ) throws(CryptoError)
        -> [String: String]
    {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        for (name, wire) in fields {
            result[name] = try decrypt(EncryptedField(wireFormat: wire), with: accessKey)
        }
        return result
    }
}
