// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// HKDF with SHA-256 (RFC 5869, through swift-crypto), for separate subkeys per purpose.
public enum HKDFSHA256 {
    /// Derives `byteCount` bytes from `inputKeyMaterial`, bound to `info` (a purpose label such as `"db"`).
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` when `byteCount` is 0 or above 255 × 32.
    public static func deriveKey(
        from inputKeyMaterial: SecureBytes,
        salt: Data = Data(),
        info: Data,
        byteCount: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        guard (1...(255 * 32)).contains(byteCount) else {
            throw CryptoError(.invalidParameters, "HKDF-SHA256 output must be 1 to 8160 bytes")
        }
        let ikm = inputKeyMaterial.withUnsafeBytes { SymmetricKey(data: $0) }
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: byteCount)
        return derived.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// Derives `byteCount` bytes bound to a text label.
    public static func deriveKey(
        from inputKeyMaterial: SecureBytes,
        salt: Data = Data(),
        label: String,
        byteCount: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        try deriveKey(from: inputKeyMaterial, salt: salt, info: Data(label.utf8), byteCount: byteCount)
    }
}
