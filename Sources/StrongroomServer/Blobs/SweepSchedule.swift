// Strongroom — SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Lets a periodic clean-up run at most once per ``interval`` in this instance: the abandoned-upload sweep lists the
/// blob folder (or queries the uploads table), too much to repeat on every file creation.
final class SweepSchedule: Sendable {
    let interval: Duration
    private let lastRun = Mutex<ContinuousClock.Instant?>(nil)

    init(interval: Duration) { self.interval = interval }

    /// Whether the clean-up is due now; when it is, the next one is due ``interval`` from now.
    func claim() -> Bool {
        let now = ContinuousClock.now
        return lastRun.withLock { lastRun in
            if let last = lastRun, now - last < interval { return false }
            lastRun = now
            return true
        }
    }
}
