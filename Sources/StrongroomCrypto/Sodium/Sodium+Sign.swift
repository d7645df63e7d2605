// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

extension Sodium {
    /// Ed25519 (`crypto_sign_*`) and unkeyed BLAKE2b (`crypto_generichash`).
    enum Sign {
        static let publicKeyByteCount = Int(crypto_sign_publickeybytes())
        static let secretKeyByteCount = Int(crypto_sign_secretkeybytes())
        static let seedByteCount = Int(crypto_sign_seedbytes())
        static let signatureByteCount = Int(crypto_sign_bytes())

        /// Expands a 32-byte seed into libsodium's 64-byte secret key (seed ‖ public key).
        static func secretKey(fromSeed seed: UnsafeRawBufferPointer) -> SecureBytes {
            precondition(seed.count == seedByteCount)
            SodiumRuntime.ensureInitialized()
            var publicKey = [UInt8](repeating: 0, count: publicKeyByteCount)
            return SecureBytes(count: secretKeyByteCount) { secret in
                _ = crypto_sign_seed_keypair(
                    &publicKey,
                    secret.sodiumMutableBytes,
                    seed.sodiumBytes
                )
            }
        }

        static func signature(for message: UnsafeRawBufferPointer, secretKey: UnsafeRawBufferPointer) -> [UInt8] {
            precondition(secretKey.count == secretKeyByteCount)
            SodiumRuntime.ensureInitialized()
            var signature = [UInt8](repeating: 0, count: signatureByteCount)
            _ = crypto_sign_detached(
                &signature,
                nil,
                message.sodiumBytes,
                UInt64(message.count),
                secretKey.sodiumBytes
            )
            return signature
        }

        static func isValid(
            signature: UnsafeRawBufferPointer,
            for message: UnsafeRawBufferPointer,
            publicKey: UnsafeRawBufferPointer
        ) -> Bool {
            guard signature.count == signatureByteCount, publicKey.count == publicKeyByteCount else { return false }
            SodiumRuntime.ensureInitialized()
            return crypto_sign_verify_detached(
                signature.sodiumBytes,
                message.sodiumBytes,
                UInt64(message.count),
                publicKey.sodiumBytes
            ) == 0
        }

        /// Unkeyed BLAKE2b with a 32-byte digest, as TSV1 and TFSP1 use it.
        static func blake2b256(_ message: UnsafeRawBufferPointer) -> [UInt8] {
            SodiumRuntime.ensureInitialized()
            var digest = [UInt8](repeating: 0, count: 32)
            _ = crypto_generichash(
                &digest,
                32,
                message.sodiumBytes,
                UInt64(message.count),
                nil,
                0
            )
            return digest
        }
    }
}
