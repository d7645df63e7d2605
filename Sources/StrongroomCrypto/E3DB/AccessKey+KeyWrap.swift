// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A 32-byte key sealed under an access key (XSalsa20-Poly1305): a field's data key (`EDK.EDKN`) or a file's stream
/// key (its prologue). Shared by the re-wraps of fields and files (docs/design/Revocation.md).
extension AccessKey {
    /// The key sealed in `box` with `nonce` when it opens under this access key, in a buffer that wipes itself.
    func openWrappedKey(_ box: Data, nonce: Data) -> SecureBytes? {
        var isOpen = false
        let key = SecureBytes(count: Sodium.SecretBox.keyByteCount) { output in
            isOpen = box.withUnsafeBytes { box in
                nonce.withUnsafeBytes { nonce in
                    secret.withUnsafeBytes { key in Sodium.SecretBox.open(box, nonce: nonce, key: key, into: output) }
                }
            }
        }
        return isOpen ? key : nil
    }

    /// `key` sealed under this access key with a fresh nonce: the box and the nonce.
    func wrapKey(_ key: SecureBytes, using random: some RandomSource) -> (box: Data, nonce: Data) {
        let nonce = SecureRandom.data(count: Sodium.SecretBox.nonceByteCount, using: random)
        let box = key.withUnsafeBytes { message in
            nonce.withUnsafeBytes { nonce in
                secret.withUnsafeBytes { key in Sodium.SecretBox.seal(message, nonce: nonce, key: key) }
            }
        }
        return (Data(box), nonce)
    }
}
