// Strongroom — SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Identifies one version of a file: every atomic write renames a new file into place.
package struct FileStamp: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
}

/// Small secret files (keychains, client profiles): crash-safe replacement and the ssh-style permission check.
///
/// A write goes to a temporary file in the same folder (mode 0600, `O_EXCL`), is fsynced, renamed into place and
/// the folder fsynced: a crash at any point leaves either the old or the new file, never a mix.
package enum AtomicFile {
    /// A failure, with a message free of file contents.
    package struct Failure: Error, Sendable {
        package let message: String
        /// Whether the failure is a ``Mode/createNew`` file that exists already.
        package var exists = false
    }

    /// Whether a file is fit to hold secrets.
    package enum Privacy: Sendable, Equatable {
        /// There is no file.
        case missing
        /// A regular file of this user that nobody else may read or write.
        case ownerOnly
        /// Anything else, with the reason.
        case exposed(String)
    }

    /// The file's stamp, or nil when it does not exist.
    package static func stamp(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStamp(
            device: UInt64(status.st_dev),
            inode: UInt64(status.st_ino),
            size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        )
    }

    /// The permission bits of `path` (following a symbolic link), or nil when it cannot be examined.
    package static func permissions(of path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt32(status.st_mode & 0o7777)
    }

    /// Refuses files that group or others may read or write, links, and files of another user (as ssh does with
    /// keys).
    package static func privacy(of path: String) -> Privacy {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .missing }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .exposed("\(path) is not a regular file") }
        guard status.st_mode & 0o077 == 0 else {
            return .exposed("\(path) is readable or writable by others; chmod 600 it")
        }
        guard status.st_uid == geteuid() else { return .exposed("\(path) belongs to another user") }
        return .ownerOnly
    }

    /// How ``write(_:to:mode:)`` treats an existing file.
    package enum Mode: Sendable {
        /// Replace it (or create the file).
        case replace
        /// Refuse: the file must not exist yet (checked atomically, by `link`, not by a prior look).
        case createNew
    }

    /// Writes `data` to `path` atomically and durably, mode 0600: a temporary file is written and synced, then
    /// renamed over `path` (``Mode/replace``) or linked to it only if `path` does not exist (``Mode/createNew``),
    /// and the folder is synced.
    ///
    /// With `durable` false nothing is synced: the replacement is still atomic for every process (a killed writer
    /// leaves the old file or the new one), but a crash of the machine may bring back an earlier version.
    ///
    /// - Throws: ``Failure`` when the file cannot be written, or exists already in ``Mode/createNew``.
    package static func write(
        _ data: Data,
        to path: String,
        mode: Mode = .replace,
        durable: Bool = true
    ) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = folder + "/." + name + "." + UUID().uuidString + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(message: "a temporary file could not be created: \(errorText())") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return !durable || fsync(fd) == 0 }
            while written < buffer.count {
                let result = Glibc.write(fd, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return !durable || fsync(fd) == 0
        }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw Failure(message: "\(name) could not be written: \(errorText())")
        }
        switch mode {
        case .replace:
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                throw Failure(message: "\(name) could not be written: \(errorText())")
            }
        case .createNew:
            let linked = link(temporary, path) == 0
            let exists = errno == EEXIST
            let reason = exists ? "it exists already" : errorText()
            unlink(temporary)
            guard linked else { throw Failure(message: "\(name) could not be created: \(reason)", exists: exists) }
        }
        guard durable else { return }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)  // the rename is durable once the folder is synced
            close(directory)
        }
    }

    /// Appends `data` to `path` in one write (created mode 0600 when missing; never through a link), unsynced, and
    /// returns the file's size after it. A killed writer leaves at most a torn last line, which readers must skip.
    ///
    /// - Throws: ``Failure`` when the file cannot be opened or written.
    package static func append(_ data: Data, to path: String) throws(Failure) -> Int64 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(message: "\(path) could not be opened: \(errorText())") }
        defer { close(fd) }
        let written = data.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            while true {
                let result = Glibc.write(fd, base, buffer.count)
                if result < 0 && errno == EINTR { continue }
                return result
            }
        }
        guard written == data.count else { throw Failure(message: "\(path) could not be written: \(errorText())") }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw Failure(message: "\(path) could not be examined") }
        return Int64(status.st_size)
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
