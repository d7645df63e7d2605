// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Constants of E3DB's large-file format, version "3".
///
/// ```
/// "3" "." b64url(EDK) "." b64url(EDKN) "."   100 ASCII bytes: the secretstream key sealed with the access key
/// SSHDR                                       24-byte secretstream header
/// C_1 … C_n                                   secretstream chunks of 65,536-byte blocks (+17 bytes each)
/// ```
/// The last chunk, short or full, carries `TAG_FINAL`; an empty file is one empty final chunk (17 bytes).
public enum FileFormat {
    /// The format version this library reads and writes.
    public static let version = "3"
    /// Plaintext bytes per chunk.
    public static let blockSize = 65_536
    /// Bytes each chunk adds (secretstream tag and MAC).
    public static let chunkOverhead = Sodium.SecretStream.additionalByteCount
    /// Ciphertext bytes of a full chunk.
    public static let chunkSize = blockSize + chunkOverhead
    /// Bytes of the secretstream header after the dotted prologue.
    public static let streamHeaderSize = Sodium.SecretStream.headerByteCount
    /// The longest prologue accepted before the stream header (the real one is 100 bytes).
    static let maximumPrologueSize = 256

    /// The encrypted size of a plaintext of `plaintextSize` bytes.
    public static func encryptedSize(forPlaintextSize plaintextSize: Int64) -> Int64 {
        let blocks = max(1, (plaintextSize + Int64(blockSize) - 1) / Int64(blockSize))
        return 100 + Int64(streamHeaderSize) + plaintextSize + blocks * Int64(chunkOverhead)
    }
}
