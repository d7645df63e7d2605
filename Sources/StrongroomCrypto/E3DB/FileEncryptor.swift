// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import Crypto
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Encrypts a byte stream into E3DB's file format, version "3", in constant memory.
///
/// Feed plaintext in pieces of any size with `update(_:into:)` and finish with ``finalize(into:)``; both
/// append ciphertext to an output buffer that you drain as you go. The encryptor also computes the size of the
/// ciphertext and, unless told not to, its MD5 checksum, which the E3DB file upload needs.
///
/// It is noncopyable: a copied stream state would reuse nonces.
public struct FileEncryptor: ~Copyable {
    // Both wiped when released: as `finalize(into:)` ends the encryptor, or when it is dropped before that (a failed
    // write, say). The stream state holds the data key, the held-back block is plaintext.
    private let stream: SecretStreamState
    private let held = PlaintextBuffer()
    private var checksum: Insecure.MD5?
    private var prologue: [UInt8]
    private var plaintextCount: Int64 = 0
    private var ciphertextCount: Int64 = 0

    /// What the encryptor produced, once finalised.
    public struct Summary: Sendable, Hashable {
        /// The ciphertext length in bytes (E3DB `file_meta.size`).
        public var size: Int64
        /// Standard base64 (padded) of the ciphertext's MD5 (E3DB `file_meta.checksum`, a `Content-MD5` value);
        /// `nil` when the encryptor was created with `computesChecksum: false`.
        public var checksum: String?
        /// The plaintext length in bytes.
        public var plaintextSize: Int64
    }

    /// Starts a stream under `accessKey`: a fresh secretstream key, sealed with the access key into the prologue.
    ///
    /// - Parameters:
    ///   - accessKey: the file's access key, which seals the stream key.
    ///   - computesChecksum: whether to compute the ciphertext's MD5 for an E3DB upload (the default). A file that
    ///     is only stored, never uploaded, does not need it, and MD5 costs about as much as the encryption.
    ///   - random: the source of the stream key and nonce.
    public init(accessKey: AccessKey, computesChecksum: Bool = true, using random: some RandomSource = .system) {
        SodiumRuntime.ensureInitialized()
        let dataKey = SecureRandom.bytes(count: Sodium.SecretStream.keyByteCount, using: random)
        let nonce = SecureRandom.data(count: Sodium.SecretBox.nonceByteCount, using: random)
        let sealedKey = dataKey.withUnsafeBytes { message in
            nonce.withUnsafeBytes { nonceBytes in
                accessKey.secret.withUnsafeBytes { key in
                    Sodium.SecretBox.seal(message, nonce: nonceBytes, key: key)
                }
            }
        }
        var prologue = Array("\(FileFormat.version).\(Base64URL.encode(sealedKey)).\(Base64URL.encode(nonce)).".utf8)
        var header = [UInt8](repeating: 0, count: FileFormat.streamHeaderSize)
        let stream = SecretStreamState()
        dataKey.withUnsafeBytes { key in
            _ = crypto_secretstream_xchacha20poly1305_init_push(&stream.state, &header, key.sodiumBytes)
        }
        prologue.append(contentsOf: header)
        self.stream = stream
        self.prologue = prologue
        self.checksum = computesChecksum ? Insecure.MD5() : nil
        held.bytes.reserveCapacity(FileFormat.blockSize)
    }

    /// Encrypts `plaintext` and appends whatever ciphertext is ready to `output`.
    ///
    /// The last full block is held back until more data or ``finalize(into:)`` arrives, because only the final
    /// chunk carries `TAG_FINAL`.
    public mutating func update(_ plaintext: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        emitPrologue(into: &output)
        plaintextCount += Int64(plaintext.count)
        var input = plaintext[...]
        while !input.isEmpty {
            if held.bytes.count == FileFormat.blockSize {
                // More data follows, so the held-back block is not the last one.
                held.bytes.withUnsafeBytes { push($0, tag: Sodium.SecretStream.tagMessage, into: &output) }
                held.bytes.removeAll(keepingCapacity: true)
            }
            if held.bytes.isEmpty && input.count > FileFormat.blockSize {
                let block = input.prefix(FileFormat.blockSize)
                push(UnsafeRawBufferPointer(rebasing: block), tag: Sodium.SecretStream.tagMessage, into: &output)
                input = input.dropFirst(FileFormat.blockSize)
                continue
            }
            let take = min(FileFormat.blockSize - held.bytes.count, input.count)
            held.bytes.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
        }
    }

    /// Encrypts `plaintext` and appends whatever ciphertext is ready to `output`.
    public mutating func update(_ plaintext: some DataProtocol, into output: inout [UInt8]) {
        if let done: Void = plaintext.withContiguousStorageIfAvailable({
            update(UnsafeRawBufferPointer($0), into: &output)
        }) {
            return done
        }
        let bytes = Array(plaintext)
        bytes.withUnsafeBytes { update($0, into: &output) }
    }

    /// Pushes the final chunk (possibly empty), appends it to `output` and returns the summary; the state and the
    /// held-back block are wiped as the encryptor ends.
    public consuming func finalize(into output: inout [UInt8]) -> Summary {
        emitPrologue(into: &output)
        held.bytes.withUnsafeBytes { push($0, tag: Sodium.SecretStream.tagFinal, into: &output) }
        return Summary(
            size: ciphertextCount,
            checksum: checksum.map { Data($0.finalize()).base64EncodedString() },
            plaintextSize: plaintextCount
        )
    }

    private mutating func emitPrologue(into output: inout [UInt8]) {
        guard !prologue.isEmpty else { return }
        output.append(contentsOf: prologue)
        prologue.withUnsafeBytes { checksum?.update(bufferPointer: $0) }
        ciphertextCount += Int64(prologue.count)
        prologue = []
    }

    private mutating func push(_ block: UnsafeRawBufferPointer, tag: UInt8, into output: inout [UInt8]) {
        // Sealed in place at the end of `output`, into capacity the cipher initialises itself: no staging buffer, no
        // second copy, no zero-fill first.
        let sealedCount = block.count + Sodium.SecretStream.additionalByteCount
        output.append(addingCapacity: sealedCount) { span in
            span.withUnsafeMutableBufferPointer { free, initialized in
                let region = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: free[..<sealedCount]))
                var length: UInt64 = 0
                _ = crypto_secretstream_xchacha20poly1305_push(
                    &stream.state,
                    region.sodiumMutableBytes,
                    &length,
                    block.sodiumBytes,
                    UInt64(block.count),
                    nil,
                    0,
                    tag
                )
                initialized = sealedCount
                checksum?.update(bufferPointer: UnsafeRawBufferPointer(region))
            }
        }
        ciphertextCount += Int64(sealedCount)
    }
}
