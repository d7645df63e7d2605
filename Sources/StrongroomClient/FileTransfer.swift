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

/// A file read in chunks of up to 1 MiB, as an async sequence of `ByteBuffer`s for the HTTP client.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let path: String
    let progress: (@Sendable (Int64) -> Void)?

    func makeAsyncIterator() -> Iterator { Iterator(path: path, progress: progress) }

    struct Iterator: AsyncIteratorProtocol {
        let path: String
        let progress: (@Sendable (Int64) -> Void)?
        var handle: FileHandle?
        var sent: Int64 = 0

        init(path: String, progress: (@Sendable (Int64) -> Void)?) {
            self.path = path
            self.progress = progress
        }

        mutating func next() async throws -> Data? {
            try Task.checkCancellation()
            if handle == nil { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) }
            guard let chunk = try handle?.read(upToCount: 1 << 20), !chunk.isEmpty else {
                try handle?.close()
                return nil
            }
            sent += Int64(chunk.count)
            progress?(sent)
            return chunk
        }
    }
}
