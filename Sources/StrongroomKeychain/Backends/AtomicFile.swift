// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Identifies one version of a file: every atomic write renames a new file into place.
struct FileStamp: Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
}

/// Whole-file reads and crash-safe replacement: temporary file in the same folder (mode 0600, `O_EXCL`), write,
/// `fsync`, `rename`, `fsync` of the folder. A crash at any point leaves either the old or the new file.
enum AtomicFile {
    /// The file's stamp, or nil when it does not exist.
    static func stamp(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStamp(
            device: UInt64(status.st_dev),
            inode: UInt64(status.st_ino),
            size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        )
    }

    /// Refuses files that group or others may read or write, and files of another user (as ssh does with keys).
    static func checkPrivate(_ path: String) throws(KeychainError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw KeychainError(.io, "there is no keychain at \(path)") }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw KeychainError(.io, "\(path) is not a regular file") }
        guard status.st_mode & 0o077 == 0 else {
            throw KeychainError(.io, "\(path) is readable or writable by others; chmod 600 it")
        }
        guard status.st_uid == geteuid() else { throw KeychainError(.io, "\(path) belongs to another user") }
    }

    static func read(_ path: String) throws(KeychainError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.io, "the keychain file could not be read")
        }
        return data
    }

    /// Replaces (or creates) `path` with `data` atomically and durably.
    static func write(_ data: Data, to path: String) throws(KeychainError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + "." + UUID().uuidString + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeychainError(.io, "a temporary file could not be created: \(errorText())") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return fsync(fd) == 0 }
            while written < buffer.count {
                let result = Glibc.write(fd, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return fsync(fd) == 0
        }
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw KeychainError(.io, "the keychain file could not be written: \(errorText())")
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)  // the rename is durable once the folder is synced
            close(directory)
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// An advisory lock (`flock`) on a side file, so that processes sharing a keychain take turns. The side file is
/// never renamed, unlike the keychain file itself.
struct FileLock: Sendable {
    let path: String

    /// Runs `body` holding the lock, shared for readers, exclusive for writers. Blocks until it is available.
    func withLock<R>(exclusive: Bool, _ body: () throws(KeychainError) -> R) throws(KeychainError) -> R {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw KeychainError(.io, "the lock file could not be opened: \(AtomicFile.errorText())") }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw KeychainError(.io, "the keychain could not be locked") }
        }
        return try body()
    }
}
