// Strongroom — SPDX-License-Identifier: Apache-2.0

import StrongroomCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock`) on a side file, so that processes sharing a keychain take turns. The side file is
/// never renamed, unlike the keychain file itself.
struct FileLock: Sendable {
    let path: String

    /// Runs `body` holding the lock, shared for readers, exclusive for writers. Blocks until it is available.
    func withLock<R>(exclusive: Bool, _ body: () throws(KeychainError) -> R) throws(KeychainError) -> R {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw KeychainError(.io, "the keychain's lock file could not be opened") }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw KeychainError(.io, "the keychain could not be locked") }
        }
        return try body()
    }
}
