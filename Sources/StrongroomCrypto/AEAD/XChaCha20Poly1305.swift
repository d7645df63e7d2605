// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// XChaCha20-Poly1305 (libsodium's `crypto_aead_xchacha20poly1305_ietf`) with associated data, for items sealed
/// at rest: random 24-byte nonces are safe at any volume, and the associated data binds each ciphertext to where
/// it belongs.
///
/// The sealed form is nonce ‖ ciphertext ‖ 16-byte tag.
public enum XChaCha20Poly1305 {
    /// 32 bytes.
    public static let keyByteCount = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    /// 24 bytes.
    public static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    /// 16 bytes.
    public static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_abytes())

    /// Seals `plaintext` under `key` with a fresh random nonce, authenticating `associatedData` too.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when the key is not 32 bytes.
    public static func seal(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        associatedData: some DataProtocol,
        using random: some RandomSource = .system
    ) throws(CryptoError) -> Data {
        guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "an XChaCha20-Poly1305 key is 32 bytes") }
        SodiumRuntime.ensureInitialized()
        let nonce = SecureRandom.data(count: nonceByteCount, using: random)
        let aad = Array(associatedData)
        var sealed = [UInt8](repeating: 0, count: nonceByteCount + plaintext.count + tagByteCount)
        sealed.replaceSubrange(0..<nonceByteCount, with: nonce)
        sealed.withUnsafeMutableBytes { output in
            plaintext.withUnsafeBytes { message in
                key.withUnsafeBytes { keyBytes in
                    aad.withUnsafeBytes { aadBytes in
                        nonce.withUnsafeBytes { nonceBytes in
                            var length: UInt64 = 0
                            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                                UnsafeMutableRawBufferPointer(rebasing: output[nonceByteCount...]).sodiumMutableBytes,
                                &length,
                                message.sodiumBytes,
                                UInt64(message.count),
                                aadBytes.sodiumBytes,
                                UInt64(aadBytes.count),
                                nil,
                                nonceBytes.sodiumBytes,
                                keyBytes.sodiumBytes
                            )
                        }
                    }
                }
            }
        }
        return Data(sealed)
    }

    /// Opens nonce ‖ ciphertext ‖ tag into a wiped-on-release buffer.
    ///
    /// - Throws: ``CryptoError/Code/truncated`` when it is too short to hold a nonce and a tag,
    ///   ``CryptoError/Code/authenticationFailed`` when the key, the associated data or any byte is wrong (nothing
    ///   is returned then), ``CryptoError/Code/invalidKey`` for a key that is not 32 bytes.
    public static func open(
        _ sealed: some DataProtocol,
        key: SecureBytes,
        associatedData: some DataProtocol
    ) throws(CryptoError) -> SecureBytes {
        guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "an XChaCha20-Poly1305 key is 32 bytes") }
        let bytes = Array(sealed)
        guard bytes.count >= nonceByteCount + tagByteCount else {
            throw CryptoError(.truncated, "the sealed item is too short")
        }
        SodiumRuntime.ensureInitialized()
        let aad = Array(associatedData)
        var status: Int32 = -1
        let plaintext = SecureBytes(count: bytes.count - nonceByteCount - tagByteCount) { output in
            bytes.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    aad.withUnsafeBytes { aadBytes in
                        var length: UInt64 = 0
                        let ciphertext = UnsafeRawBufferPointer(rebasing: input[nonceByteCount...])
                        status = crypto_aead_xchacha20poly1305_ietf_decrypt(
                            output.sodiumMutableBytes,
                            &length,
                            nil,
                            ciphertext.sodiumBytes,
                            UInt64(ciphertext.count),
                            aadBytes.sodiumBytes,
                            UInt64(aadBytes.count),
                            UnsafeRawBufferPointer(rebasing: input[0..<nonceByteCount]).sodiumBytes,
                            keyBytes.sodiumBytes
                        )
                    }
                }
            }
        }
        guard status == 0 else { throw CryptoError(.authenticationFailed, "the sealed item does not authenticate") }
        return plaintext
    }
}
