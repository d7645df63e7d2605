// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

extension Sodium {
    /// `crypto_box_easy` (X25519-XSalsa20-Poly1305) and X25519 key derivation.
    enum Box {
        static let publicKeyByteCount = Int(crypto_box_publickeybytes())
        static let secretKeyByteCount = Int(crypto_box_secretkeybytes())
        static let nonceByteCount = Int(crypto_box_noncebytes())
        static let macByteCount = Int(crypto_box_macbytes())

        /// The X25519 public key for a secret key (`crypto_scalarmult_base`, as `crypto_box_keypair` does).
        static func publicKey(forSecretKey secret: UnsafeRawBufferPointer) -> [UInt8] {
            precondition(secret.count == secretKeyByteCount)
            SodiumRuntime.ensureInitialized()
            var out = [UInt8](repeating: 0, count: publicKeyByteCount)
            _ = crypto_scalarmult_base(&out, secret.sodiumBytes)
            return out
        }

        static func seal(
            _ message: UnsafeRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            recipientPublicKey: UnsafeRawBufferPointer,
            senderSecretKey: UnsafeRawBufferPointer
        ) -> [UInt8] {
            SodiumRuntime.ensureInitialized()
            return [UInt8](unsafeUninitializedCapacity: message.count + macByteCount) { out, count in
                _ = crypto_box_easy(
                    UnsafeMutableRawBufferPointer(out).sodiumMutableBytes,
                    message.sodiumBytes,
                    UInt64(message.count),
                    nonce.sodiumBytes,
                    recipientPublicKey.sodiumBytes,
                    senderSecretKey.sodiumBytes
                )
                count = message.count + macByteCount
            }
        }

        /// Opens a box into `output`; false (and `output` wiped) when authentication fails or the key is weak.
        static func open(
            _ box: UnsafeRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            senderPublicKey: UnsafeRawBufferPointer,
            recipientSecretKey: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer
        ) -> Bool {
            precondition(box.count >= macByteCount && output.count == box.count - macByteCount)
            SodiumRuntime.ensureInitialized()
            let status = crypto_box_open_easy(
                output.sodiumMutableBytes,
                box.sodiumBytes,
                UInt64(box.count),
                nonce.sodiumBytes,
                senderPublicKey.sodiumBytes,
                recipientSecretKey.sodiumBytes
            )
            if status != 0 { Wipe.memory(output) }
            return status == 0
        }
    }
}
