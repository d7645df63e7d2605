// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file system of its own, `bytes` large (a tmpfs mounted for the test), for disk-full faults: writes there fail
/// with `ENOSPC` once it is full, while the rest of the machine is unaffected. Mounting needs root, which CI has;
/// ``isAvailable`` says whether this process can.
public enum SmallFileSystem {
    /// Whether this process may mount one (it runs as root).
    public static var isAvailable: Bool { geteuid() == 0 }

    /// Runs `body` with the mount point of a fresh `bytes`-byte file system, unmounted (with everything on it)
    /// afterwards.
    public static func with<R>(bytes: Int, _ body: (URL) async throws -> R) async throws -> R {
        try await withTemporaryDirectory { directory in
            let mount = directory.appending(path: "small")
            try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: false)
            let mounted = try await ExternalProcess.run(
                URL(fileURLWithPath: "/bin/mount"),
                arguments: ["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", mount.path]
            )
            guard mounted.status == 0 else { throw MountError(message: "mount failed: \(mounted.output)") }
            defer { umount2(mount.path, Int32(MNT_DETACH)) }  // lazily, so an open file cannot keep it busy
            return try await body(mount)
        }
    }

    /// Fills the file system at `mount` with a file `filler` until no byte is left; removing it frees the space.
    public static func fill(_ mount: URL, filler: String = "filler") {
        let path = mount.appending(path: filler).path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x5A, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Mounting failed.
    public struct MountError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
