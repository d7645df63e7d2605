// Strongroom — SPDX-License-Identifier: Apache-2.0

// Foundation itself, not FoundationEssentials: the operating system's reason for a failed folder is read from
// NSError's underlying error.
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner-only folders and 32-byte secret key files: a server's data directory and token key, a key log witness's
/// directory and key. A folder is created 0700 (an existing one open to group or others is tightened); a key is
/// created once (random, 0600, new-only so that two processes starting at once keep the first) and refused when
/// group or others can read it.
package enum PrivateFiles {
    /// A failure: the folder or file cannot be created (``Failure/Kind/cannotCreate``), or what is there cannot be
    /// used (``Failure/Kind/unusable``). The message names the path and says what to do; it holds no key bytes.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package enum Kind: Sendable { case cannotCreate, unusable }
        package let kind: Kind
        package let message: String
        package var description: String { message }

        package init(kind: Kind, message: String) { (self.kind, self.message) = (kind, message) }
    }

    /// Creates the folder `path` (and its parents) owner-only unless it exists; the failure says `what` cannot be
    /// created and the operating system's reason.
    package static func createFolder(_ path: String, naming what: String) throws(Failure) {
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
            let reason = underlying.map { String(cString: strerror(Int32(clamping: $0.code))) } ?? "\(error)"
            throw Failure(kind: .cannotCreate, message: "\(what) cannot be created: \(reason)")
        }
    }

    /// Creates the folder `path` owner-only, or tightens an existing one open to group or others to 0700; returns
    /// whether it tightened one.
    package static func prepareFolder(_ path: String, naming what: String) throws(Failure) -> Bool {
        try createFolder(path, naming: what)
        guard let permissions = AtomicFile.permissions(of: path) else {
            throw Failure(kind: .unusable, message: "\(what) cannot be read")
        }
        guard permissions & 0o077 != 0 else { return false }
        guard chmod(path, 0o700) == 0 else {
            throw Failure(
                kind: .unusable,
                message: "\(what) is open to group or others and cannot be tightened to 0700"
            )
        }
        return true
    }

    /// The 32-byte secret at `path`, created once; one readable by group or others, or of another length, is
    /// refused, saying `consequence` of removing it.
    package static func secretKey(at path: String, consequence: String) throws(Failure) -> Data {
        if let permissions = AtomicFile.permissions(of: path), permissions & 0o077 != 0 {
            throw Failure(
                kind: .unusable,
                message: "\(path) is readable by group or others: remove it (\(consequence)) or chmod 600 it"
            )
        }
        if let existing = FileManager.default.contents(atPath: path) {
            guard existing.count == 32 else {
                throw Failure(kind: .unusable, message: "\(path) is not a 32-byte key: remove it (\(consequence))")
            }
            return existing
        }
        do {
            // New-only, atomic and durable: two processes starting at once keep the one key written first.
            try AtomicFile.write(SecureRandom.data(count: 32), to: path, mode: .createNew)
        } catch {
            guard FileManager.default.fileExists(atPath: path) else {
                throw Failure(kind: .unusable, message: "\(path) could not be created: \(error.message)")
            }
        }
        guard let stored = FileManager.default.contents(atPath: path), stored.count == 32 else {
            throw Failure(kind: .unusable, message: "\(path) could not be read back")
        }
        return stored
    }
}
