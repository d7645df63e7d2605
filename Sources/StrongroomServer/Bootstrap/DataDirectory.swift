// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import Logging
import StrongroomCore

#if canImport(Glibc)
import Glibc
#endif

/// The data directory: created 0700 (an existing one open to group or others is tightened, with a warning);
/// holds the database and the token key (0600).
package enum DataDirectory {
    package static func prepare(_ path: String, logger: Logger? = nil) throws {
        try createFolder(path, naming: "the data directory \(path)")
        // (`struct stat` is read in StrongroomCore: here member-import visibility cannot tell which of the modules
        // that re-export it to credit.)
        guard let permissions = AtomicFile.permissions(of: path) else {
            throw ServerError.storage("the data directory cannot be read")
        }
        if permissions & 0o077 != 0 {
            guard chmod(path, 0o700) == 0 else {
                throw ServerError.storage(
                    "the data directory \(path) is open to group or others and cannot be tightened to 0700"
                )
            }
            logger?.warning("tightened the data directory to 0700: it was open to group or others")
        }
    }

    /// Creates the folder `path` (and its parents) owner-only unless it exists; a failure is a configuration error
    /// that says `what` cannot be created and the operating system's reason (Foundation's own error prints as a
    /// dictionary).
    static func createFolder(_ path: String, naming what: String) throws(ServerError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
            let reason = underlying.map { String(cString: strerror(Int32(clamping: $0.code))) } ?? "\(error)"
            throw ServerError(.configuration, "\(what) cannot be created: \(reason)")
        }
    }

    /// Creates `path` as an empty owner-only file if it does not exist; makes an existing one owner-only.
    static func createOwnerOnly(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw ServerError.storage("the database file cannot be created") }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw ServerError.storage("the database file mode cannot be set") }
    }

    /// The HMAC key for bearer tokens, created once (32 random bytes, mode 0600). An existing key readable by
    /// group or others is refused: it may have leaked, so tokens signed with it cannot be trusted.
    static func tokenKey(in directory: String) throws -> Data {
        try secretKey(at: directory + "/token.key", consequence: "all tokens are then invalid")
    }

    /// The 32-byte secret at `path`, created once (random, mode 0600, new-only so that two processes starting at once
    /// keep the first); one readable by group or others, or of another length, is refused, saying `consequence` of
    /// removing it.
    static func secretKey(at path: String, consequence: String) throws -> Data {
        if let permissions = AtomicFile.permissions(of: path), permissions & 0o077 != 0 {
            throw ServerError.storage(
                "\(path) is readable by group or others: remove it (\(consequence)) or chmod 600 it"
            )
        }
        if let existing = FileManager.default.contents(atPath: path) {
            guard existing.count == 32 else {
                throw ServerError.storage("\(path) is not a 32-byte key: remove it (\(consequence))")
            }
            return existing
        }
        do {
            // New-only, atomic and durable: two instances starting at once keep the one key written first.
            try AtomicFile.write(SecureRandom.data(count: 32), to: path, mode: .createNew)
        } catch {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ServerError.storage("\(path) could not be created: \(error.message)")
            }
        }
        guard let stored = FileManager.default.contents(atPath: path), stored.count == 32 else {
            throw ServerError.storage("\(path) could not be read back")
        }
        return stored
    }
}
