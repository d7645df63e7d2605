// Strongroom — SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path or an open descriptor is, without following a link: for code that must never follow one (backup and
/// restore). `struct stat` is read here, in one module, so that modules importing several that re-export it need not
/// say which to credit.
package enum FileKind: Sendable, Equatable {
    /// Nothing is there.
    case missing
    case regularFile
    case directory
    case symbolicLink
    /// A device, socket or pipe.
    case other

    /// What `path` is (`lstat`: a link is a link).
    package static func at(_ path: String) -> FileKind {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .missing }
        return kind(status.st_mode)
    }

    /// What the open `descriptor` is (`fstat`).
    package static func of(descriptor: Int32) -> FileKind {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .missing }
        return kind(status.st_mode)
    }

    private static func kind(_ mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
        case S_IFREG: .regularFile
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        default: .other
        }
    }
}
