// Strongroom — SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import NIOCore
import StrongroomCore
import Synchronization

/// Counts failed credential attempts (registration tokens, API key pairs, backup acknowledgements) per source
/// address in fixed one-minute windows; a source past its allowance is answered 429 until its window ends.
///
/// The state is per instance and bounded: at most ``maximumSources`` addresses are tracked, and when full the
/// table is cleared (an attacker rotating addresses then gets at most one more window's worth per address).
final class FailureRateLimiter: Sendable {
    static let maximumSources = 100_000

    private struct Window {
        var start: NIODeadline
        var failures: Int
    }

    private let allowance: Int
    private let window: TimeAmount
    private let windows = Mutex<[String: Window]>([:])

    init(failuresPerMinute: Int, window: TimeAmount = .minutes(1)) {
        self.allowance = failuresPerMinute
        self.window = window
    }

    /// Throws a 429 when `source` has used up its failures in the current window.
    func check(_ source: String, now: NIODeadline = .now()) throws {
        let blocked = windows.withLock { windows in
            guard let current = windows[source], now - current.start < window else { return false }
            return current.failures >= allowance
        }
        if blocked {
            throw ServerError(.rateLimited, "too many failed attempts; try again in a minute")
        }
    }

    /// Counts one failure for `source`.
    func recordFailure(_ source: String, now: NIODeadline = .now()) {
        windows.withLock { windows in
            if windows.count >= Self.maximumSources, windows[source] == nil { windows.removeAll() }
            if var current = windows[source], now - current.start < window {
                current.failures += 1
                windows[source] = current
            } else {
                windows[source] = Window(start: now, failures: 1)
            }
        }
    }
}
