// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor with blocking reads and writes. Used only from `BlockingExecutor` worker threads and the
/// queues of ``ReadAhead`` and ``WriteBehind``.
struct BlockingFile: ~Copyable {
    let descriptor: Int32

    /// Opens an existing file for reading.
    static func openForReading(_ path: String) throws(CryptoError) -> BlockingFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CryptoError(.io, "cannot open \(path) for reading: \(errnoDescription())") }
        return BlockingFile(descriptor: fd)
    }

    /// Creates a new file with mode 0600 that must not exist yet (`O_EXCL`, `O_NOFOLLOW`).
    static func createExclusive(_ path: String) throws(CryptoError) -> BlockingFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CryptoError(.io, "cannot create \(path): \(errnoDescription())") }
        return BlockingFile(descriptor: fd)
    }

    /// Reads up to `buffer.count` bytes from `descriptor` (from ``ReadAhead``'s queue); 0 means end of file.
    static func read(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32) throws(CryptoError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw CryptoError(.io, "read failed: \(errnoDescription())")
        }
    }

    /// Writes every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        try Self.write(bytes, to: descriptor)
    }

    /// Writes every byte of `bytes` to `descriptor` (also from ``WriteBehind``'s queue).
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(CryptoError) {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw CryptoError(.io, "write failed: \(errnoDescription())")
            }
            offset += count
        }
    }

    /// Flushes the file's data to stable storage.
    func sync() throws(CryptoError) {
        guard fsync(descriptor) == 0 else { throw CryptoError(.io, "fsync failed: \(errnoDescription())") }
    }

    deinit { close(descriptor) }
}

/// The text of the current `errno`, free of user data.
func errnoDescription() -> String {
    String(cString: strerror(errno))
}
