// Strongroom — SPDX-License-Identifier: Apache-2.0
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The named files this process has staged and not yet committed or removed (a download's ciphertext, an
/// encrypted copy waiting to be uploaded, a replacement waiting to be renamed into place). Work that stages a file
/// registers it here for as long as the file exists; a program that is interrupted (the CLI on SIGINT or SIGTERM)
/// calls ``removeAll()`` before it exits, so nothing staged is left behind even when the work could not unwind.
///
/// Plaintext never needs this: it is written to unnamed files (`O_TMPFILE`) that cannot outlive the process.
public enum StagedFiles {
    private static let paths = Mutex<[UInt64: String]>([:])
    private static let counter = Atomic<UInt64>(0)

    /// Registers `path` until ``unregister(_:)``; the token to unregister it with.
    public static func register(_ path: String) -> UInt64 {
        let token = counter.add(1, ordering: .relaxed).newValue
        paths.withLock { $0[token] = path }
        return token
    }

    /// Forgets a registration (the file was committed or removed).
    public static func unregister(_ token: UInt64) {
        _ = paths.withLock { $0.removeValue(forKey: token) }
    }

    /// The paths registered now.
    public static var registered: [String] { paths.withLock { Array($0.values) } }

    /// Removes every registered file and forgets them: what an interrupted program does last.
    public static func removeAll() {
        let staged = paths.withLock { paths in
            defer { paths.removeAll() }
            return Array(paths.values)
        }
        for path in staged { unlink(path) }
    }
}
