// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where a file transfer is, for progress observers: each case carries the bytes done so far in that stage.
public enum FileTransferProgress: Sendable, Hashable {
    /// Plaintext bytes encrypted (before upload).
    case encrypting(Int64)
    /// Ciphertext bytes sent.
    case uploading(Int64)
    /// Ciphertext bytes received.
    case downloading(Int64)
    /// Ciphertext bytes decrypted (after download).
    case decrypting(Int64)
}

/// A stored file record: its metadata and the ciphertext's size and checksum.
public struct FileInfo: Sendable, Hashable {
    /// The record's metadata.
    public var meta: Meta
    /// The encrypted size in bytes.
    public var size: Int64
    /// Standard base64 of the ciphertext's MD5.
    public var checksum: String
    /// The file name recorded with it (the local name at upload).
    public var fileName: String?
}
