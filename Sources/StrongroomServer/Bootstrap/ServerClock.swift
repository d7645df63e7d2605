// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import StrongroomCore
import StrongroomWire
import Synchronization

/// The server's one clock, over an injected ``StrongroomCore/WallClock`` (tests pass a fixed one): wall time for
/// tokens, signatures and expiries, and record timestamps that strictly increase within the process (two writes by
/// one client must differ, §0.4).
package final class ServerClock: Sendable {
    private let wall: any WallClock
    private let last = Mutex<Int64>(0)

    package init(_ wall: any WallClock) { self.wall = wall }

    /// The wall time.
    var now: Date { wall.now }

    /// Whole Unix seconds (0 for a clock outside `Int64`'s range, which no real clock is).
    var unixSeconds: Int64 { Int64(exactly: wall.now.timeIntervalSince1970.rounded(.down)) ?? 0 }

    /// The wall time as a timestamp (microseconds), not necessarily increasing.
    var wallTimestamp: Timestamp {
        Timestamp(microseconds: Int64(exactly: (wall.now.timeIntervalSince1970 * 1_000_000).rounded(.down)) ?? 0)
    }

    /// A timestamp strictly after every one this clock returned before.
    func timestamp() -> Timestamp {
        let system = wallTimestamp.microseconds
        return Timestamp(
            microseconds: last.withLock { value in
                value = Swift.max(system, value.addingSaturating(1))
                return value
            }
        )
    }
}
