// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// A file read in chunks of up to 64 KiB (AsyncHTTPClient streams small chunks several times faster) straight
/// into `ByteBuffer`s (no intermediate copy), as an async sequence for the HTTP client; `progress` gets the bytes
/// read so far.
package struct FileChunks: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer
    static let chunkSize = 64 << 10
    let path: String
    let progress: (@Sendable (Int64) -> Void)?

    package init(path: String, progress: (@Sendable (Int64) -> Void)?) {
        self.path = path
        self.progress = progress
    }

    package func makeAsyncIterator() -> Iterator { Iterator(path: path, progress: progress) }

    package struct Iterator: AsyncIteratorProtocol {
        let path: String
        let progress: (@Sendable (Int64) -> Void)?
        var file: OpenFile?
        var sent: Int64 = 0
        var finished = false

        init(path: String, progress: (@Sendable (Int64) -> Void)?) {
            self.path = path
            self.progress = progress
        }

        package mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            guard !finished else { return nil }
            if file == nil { file = try OpenFile(path: path) }
            guard let fd = file?.descriptor else { return nil }
            var buffer = ByteBufferAllocator().buffer(capacity: FileChunks.chunkSize)
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FileChunks.chunkSize) { bytes in
                var total = 0
                while total < bytes.count {
                    guard let base = bytes.baseAddress else { break }
                    let result = read(fd, base + total, bytes.count - total)
                    if result < 0 && errno == EINTR { continue }
                    if result <= 0 { break }
                    total += result
                }
                return total
            }
            if count == 0 {
                file = nil  // closes it
                finished = true
                return nil
            }
            sent += Int64(count)
            progress?(sent)
            return buffer
        }
    }
}

/// A read-only descriptor closed when the last reference goes (also when an upload is abandoned half-way).
final class OpenFile {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
    }

    deinit { close(descriptor) }
}
