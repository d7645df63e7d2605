// Strongroom — SPDX-License-Identifier: Apache-2.0
import CFileSync
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

    /// An unnamed file (mode 0600) in the folder of `path`, to be given that name by ``link(to:)`` once complete;
    /// its descriptor (for ``init(descriptor:)``), or -1 where the file system or the system has no unnamed files
    /// (then the caller stages a named file).
    static func createUnnamed(beside path: String) -> Int32 {
        let folder: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        return cfilesync_open_unnamed(folder)
    }

    /// Names the unnamed file `path`, which must not exist (an existing one is never replaced).
    func link(to path: String) throws(CryptoError) {
        guard cfilesync_link_unnamed(descriptor, path) == 0 else {
            if errno == EEXIST { throw CryptoError(.exists, "the destination already exists") }
            throw CryptoError(.io, "the finished file could not be named: \(errnoDescription())")
        }
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
