// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

#if canImport(Glibc)
import Glibc
#endif

/// Copies for backup and restore that never follow a link (blocking: run on the BlockingExecutor).
///
/// A restore usually runs as root on a folder someone else may have made: a link in it (to `/etc/shadow`, to a host
/// key) must never be read, copied into a data directory the server would serve from, or have its target's mode
/// changed. Every source is opened with `O_NOFOLLOW` and must be a regular file (checked on the descriptor, so no
/// swap between a check and the open), every target is created new (`O_EXCL | O_NOFOLLOW`) and its mode set on the
/// descriptor, and a folder's entries are examined with `lstat`: anything but a regular file is refused.
enum NoFollowCopy {
    /// What `lstat` says a path is.
    enum Kind: Equatable {
        case missing
        case file
        case folder
        /// A link, device, socket or pipe: never copied.
        case other(String)
    }

    /// What `path` is, without following a link.
    static func kind(of path: String) -> Kind {
        switch FileKind.at(path) {
        case .missing: .missing
        case .regularFile: .file
        case .directory: .folder
        case .symbolicLink: .other("a symbolic link")
        case .other: .other("not a regular file")
        }
    }

    /// Copies the regular file `source` to the new owner-only file `target`.
    ///
    /// - Throws: ``ServerError/Code/configuration`` when `source` is a link or not a regular file,
    ///   ``ServerError/Code/storage`` when reading or writing fails.
    static func copyFile(_ source: String, to target: String) throws(ServerError) {
        let input = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard input >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw ServerError(.configuration, "\(source) is not copied: \(reason)")
        }
        defer { close(input) }
        guard FileKind.of(descriptor: input) == .regularFile else {
            throw ServerError(.configuration, "\(source) is not copied: it is not a regular file")
        }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            throw ServerError(.storage, "\(target) cannot be created: \(String(cString: strerror(errno)))")
        }
        defer { close(output) }
        guard fchmod(output, 0o600) == 0 else {
            throw ServerError(.storage, "\(target) could not be made owner-only (errno \(errno))")
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ServerError(.storage, "\(source) could not be read (errno \(errno))") }
            if count == 0 { return }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { bytes in
                    write(output, UnsafeRawBufferPointer(rebasing: bytes[written..<count]).baseAddress, count - written)
                }
                if step < 0, errno == EINTR { continue }
                guard step > 0 else { throw ServerError(.storage, "\(target) could not be written (errno \(errno))") }
                written += step
            }
        }
    }

    /// The names in the folder `path` (not a link to one), each checked to be a regular file; nil when `path` does
    /// not exist. `skipping` leaves names out before they are checked (an upload's staging file).
    ///
    /// - Throws: ``ServerError/Code/configuration`` for a link or anything that is not a regular file.
    static func regularFiles(in path: String, skipping: (String) -> Bool) throws(ServerError) -> [String]? {
        switch kind(of: path) {
        case .missing: return nil
        case .folder: break
        case .file: throw ServerError(.configuration, "\(path) is not copied: it is not a folder")
        case .other(let what): throw ServerError(.configuration, "\(path) is not copied: it is \(what)")
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw ServerError(.storage, "\(path) could not be listed: \(error.localizedDescription)")
        }
        var files: [String] = []
        for name in names.sorted() where !skipping(name) {
            switch kind(of: path + "/" + name) {
            case .file: files.append(name)
            case .missing: continue  // listed and then gone (a body deleted, a staging file renamed)
            case .folder: throw ServerError(.configuration, "\(path)/\(name) is not copied: it is a folder")
            case .other(let what): throw ServerError(.configuration, "\(path)/\(name) is not copied: it is \(what)")
            }
        }
        return files
    }
}
