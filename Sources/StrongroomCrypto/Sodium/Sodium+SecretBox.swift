// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

/// Thin, internal wrappers over the libsodium calls the E3DB suite uses. Nothing here is public.
enum Sodium {}

extension Sodium {
    /// `crypto_secretbox_easy` (XSalsa20-Poly1305): output is MAC ‖ ciphertext.
    enum SecretBox {
        static let keyByteCount = Int(crypto_secretbox_keybytes())
        static let nonceByteCount = Int(crypto_secretbox_noncebytes())
        static let macByteCount = Int(crypto_secretbox_macbytes())

        /// Seals `message` under `key` with `nonce`; returns MAC ‖ ciphertext.
        static func seal(
            _ message: UnsafeRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            key: UnsafeRawBufferPointer
        ) -> [UInt8] {
            precondition(nonce.count == nonceByteCount && key.count == keyByteCount)
            SodiumRuntime.ensureInitialized()
            return [UInt8](unsafeUninitializedCapacity: message.count + macByteCount) { out, count in
                _ = crypto_secretbox_easy(
                    UnsafeMutableRawBufferPointer(out).sodiumMutableBytes,
                    message.sodiumBytes,
                    UInt64(message.count),
                    nonce.sodiumBytes,
                    key.sodiumBytes
                )
                count = message.count + macByteCount
            }
        }

        /// Opens MAC ‖ ciphertext into `output` (which must hold `box.count - macByteCount` bytes).
        /// Returns false when authentication fails; `output` is then wiped.
        static func open(
            _ box: UnsafeRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            key: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer
        ) -> Bool {
            precondition(nonce.count == nonceByteCount && key.count == keyByteCount)
            precondition(box.count >= macByteCount && output.count == box.count - macByteCount)
            SodiumRuntime.ensureInitialized()
            let status = crypto_secretbox_open_easy(
                output.sodiumMutableBytes,
                box.sodiumBytes,
                UInt64(box.count),
                nonce.sodiumBytes,
                key.sodiumBytes
            )
            if status != 0 { Wipe.memory(output) }
            return status == 0
        }
    }
}
