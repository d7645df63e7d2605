// Strongroom — SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The exact-length loop under every agent read and write (socket or pipe): repeat a system call until all the bytes
/// moved, retrying an interrupted one.
package enum ExactIO {
    /// Calls `step` with the offset reached until `count` bytes moved; `step` returns the bytes it moved, 0 at the end
    /// of the stream, or -1 with `errno` set. nil when everything moved; else `errno`, or `endOfStream` for an end.
    package static func transfer(count: Int, endOfStream: Int32, _ step: (_ offset: Int) -> Int) -> Int32? {
        var offset = 0
        while offset < count {
            let moved = step(offset)
            if moved < 0, errno == EINTR { continue }
            guard moved > 0 else { return moved < 0 ? errno : endOfStream }
            offset += moved
        }
        return nil
    }
}
