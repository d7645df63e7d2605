// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
public import StrongroomCore

/// libsodium's `crypto_secretstream_xchacha20poly1305`, one chunk at a time: each chunk is authenticated on its own
/// (with its own associated data), chunks cannot be reordered, dropped or replayed, and the last one carries
/// `TAG_FINAL`, so a truncated stream is detected. Used for files that must be read and written in constant memory.
public enum SecretStream {
    /// The key length (32).
    public static let keyByteCount = Sodium.SecretStream.keyByteCount
    /// The stream header's length (24): written once, before the first chunk.
    public static let headerByteCount = Sodium.SecretStream.headerByteCount
    /// Bytes added to every chunk (17: a tag byte and a 16-byte MAC).
    public static let chunkOverhead = Sodium.SecretStream.additionalByteCount

    /// Seals chunks. A class, never copied: a copied state would reuse nonces. Its state is wiped when released.
    public final class Sealer {
        private let box = SecretStreamState()
        /// The header to store before the first chunk.
        public let header: [UInt8]

        /// Starts a stream under `key` (32 bytes) with a random header.
        ///
        /// - Throws: ``CryptoError/Code/invalidKey`` for another key length.
        public init(key: SecureBytes) throws(CryptoError) {
            guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "a secretstream key is 32 bytes") }
            SodiumRuntime.ensureInitialized()
            var header = [UInt8](repeating: 0, count: headerByteCount)
            let box = box
            key.withUnsafeBytes { keyBytes in
                _ = crypto_secretstream_xchacha20poly1305_init_push(&box.state, &header, keyBytes.sodiumBytes)
            }
            self.header = header
        }

        /// Seals one chunk; mark the last one `isFinal`.
        public func seal(
            _ plaintext: UnsafeRawBufferPointer,
            associatedData: [UInt8],
            isFinal: Bool
        ) -> [UInt8] {
            var output: [UInt8] = []
            seal(plaintext, associatedData: associatedData, isFinal: isFinal, appendingTo: &output)
            return output
        }

        /// Seals one chunk onto the end of `output` — what ``seal(_:associatedData:isFinal:)`` returns, without an
        /// array of its own (for a writer that gathers many chunks into one write).
        public func seal(
            _ plaintext: UnsafeRawBufferPointer,
            associatedData: [UInt8],
            isFinal: Bool,
            appendingTo output: inout [UInt8]
        ) {
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: plaintext.count + chunkOverhead))
            let tag = isFinal ? Sodium.SecretStream.tagFinal : Sodium.SecretStream.tagMessage
            output.withUnsafeMutableBytes { whole in
                let out = UnsafeMutableRawBufferPointer(rebasing: whole[start...])
                associatedData.withUnsafeBytes { aad in
                    _ = crypto_secretstream_xchacha20poly1305_push(
                        &box.state,
                        out.sodiumMutableBytes,
                        nil,
                        plaintext.isEmpty ? nil : plaintext.sodiumBytes,
                        UInt64(plaintext.count),
                        aad.isEmpty ? nil : aad.sodiumBytes,
                        UInt64(aad.count),
                        tag
                    )
                }
            }
        }

    }

    /// Opens chunks sealed by a ``Sealer``, in order.
    public final class Opener {
        private let box = SecretStreamState()

        /// Starts reading a stream whose header is `header`, under `key`.
        ///
        /// - Throws: ``CryptoError/Code/invalidKey`` for another key length; ``CryptoError/Code/invalidFormat``
        ///   for a header of the wrong length.
        public init(key: SecureBytes, header: [UInt8]) throws(CryptoError) {
            guard key.count == keyByteCount else { throw CryptoError(.invalidKey, "a secretstream key is 32 bytes") }
            guard header.count == headerByteCount else {
                throw CryptoError(.invalidFormat, "a secretstream header is \(headerByteCount) bytes")
            }
            SodiumRuntime.ensureInitialized()
            let box = box
            let status = key.withUnsafeBytes { keyBytes in
                header.withUnsafeBytes {
                    crypto_secretstream_xchacha20poly1305_init_pull(&box.state, $0.sodiumBytes, keyBytes.sodiumBytes)
                }
            }
            guard status == 0 else { throw CryptoError(.invalidFormat, "the secretstream header is invalid") }
        }

        /// Opens the next chunk: its plaintext and whether it was the final one.
        ///
        /// - Throws: ``CryptoError/Code/authenticationFailed`` for a chunk that was altered, reordered, moved from
        ///   another stream or sealed with other associated data; ``CryptoError/Code/truncated`` for one shorter
        ///   than the overhead.
        public func open(
            _ sealed: UnsafeRawBufferPointer,
            associatedData: [UInt8]
        ) throws(CryptoError) -> (plaintext: SecureBytes, isFinal: Bool) {
            guard sealed.count >= chunkOverhead else { throw CryptoError(.truncated, "a chunk is too short") }
            var isFinal = false
            let plaintext = try SecureBytes(count: sealed.count - chunkOverhead) { output throws(CryptoError) in
                isFinal = try open(sealed, associatedData: associatedData, into: output).isFinal
            }
            return (plaintext, isFinal)
        }

        /// Opens the next chunk into `output`, which must hold at least `sealed.count - chunkOverhead` bytes — for
        /// bulk content that is not key material, without an intermediate secure buffer.
        ///
        /// - Returns: the plaintext's length and whether it was the final chunk. On failure `output` holds nothing
        ///   meaningful (libsodium writes no plaintext for a chunk that does not authenticate).
        /// - Throws: as ``open(_:associatedData:)``; ``CryptoError/Code/invalidParameters`` when `output` is too
        ///   small.
        public func open(
            _ sealed: UnsafeRawBufferPointer,
            associatedData: [UInt8],
            into output: UnsafeMutableRawBufferPointer
        ) throws(CryptoError) -> (count: Int, isFinal: Bool) {
            guard sealed.count >= chunkOverhead else { throw CryptoError(.truncated, "a chunk is too short") }
            let count = sealed.count - chunkOverhead
            guard output.count >= count else { throw CryptoError(.invalidParameters, "the output is too small") }
            var tag: UInt8 = 0
            let status = associatedData.withUnsafeBytes { aad in
                crypto_secretstream_xchacha20poly1305_pull(
                    &box.state,
                    count == 0 ? nil : output.sodiumMutableBytes,
                    nil,
                    &tag,
                    sealed.sodiumBytes,
                    UInt64(sealed.count),
                    aad.isEmpty ? nil : aad.sodiumBytes,
                    UInt64(aad.count)
                )
            }
            guard status == 0 else { throw CryptoError(.authenticationFailed, "a chunk did not authenticate") }
            return (count, tag == Sodium.SecretStream.tagFinal)
        }
    }
}
