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
        let tightened: Bool
        do {
            tightened = try PrivateFiles.prepareFolder(path, naming: "the data directory \(path)")
        } catch {
            throw ServerError(error)
        }
        if tightened { logger?.warning("tightened the data directory to 0700: it was open to group or others") }
    }

    /// Creates the folder `path` (and its parents) owner-only unless it exists; a failure is a configuration error
    /// that says `what` cannot be created and the operating system's reason.
    static func createFolder(_ path: String, naming what: String) throws(ServerError) {
        do {
            try PrivateFiles.createFolder(path, naming: what)
        } catch {
            throw ServerError(error)
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

    /// The 32-byte secret at `path`, created once (``PrivateFiles/secretKey(at:consequence:)``).
    static func secretKey(at path: String, consequence: String) throws(ServerError) -> Data {
        do {
            return try PrivateFiles.secretKey(at: path, consequence: consequence)
        } catch {
            throw ServerError(error)
        }
    }
}

extension ServerError {
    /// A private folder or key file that cannot be created (a configuration error) or used (storage).
    init(_ failure: PrivateFiles.Failure) {
        self.init(failure.kind == .cannotCreate ? .configuration : .storage, failure.message)
    }
}
