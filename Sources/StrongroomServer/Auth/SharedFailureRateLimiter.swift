// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import StrongroomCore
import StrongroomWire

/// Counts failed credential attempts, and refuses a source past its allowance with 429 until its one-minute window
/// ends. ``FailureRateLimiter`` counts in memory for one instance; ``SharedFailureRateLimiter`` in the database, for
/// every instance of a deployment.
protocol FailureCounting: Sendable {
    /// Throws a 429 when `source` has used up its failures in the current window.
    func check(_ source: String) async throws
    /// Counts one failure for `source`.
    func recordFailure(_ source: String, logger: Logger) async
}

extension FailureRateLimiter: FailureCounting {
    func check(_ source: String) async throws { try check(source, now: .now()) }

    func recordFailure(_ source: String, logger: Logger) async { recordFailure(source, now: .now()) }
}

/// The failed-credential limit counted in the shared database (`auth_failures`), so that N instances behind one
/// load balancer allow a source the same number of attempts as one. Costs one indexed read per credential request
/// and one upsert per failure; expired windows are deleted at most once a minute per instance.
struct SharedFailureRateLimiter: FailureCounting {
    private let store: SQLServerStore
    private let clock: ServerClock
    private let allowance: Int64
    private let window: Duration
    private let cleanup = SweepSchedule(interval: .seconds(60))

    init(store: SQLServerStore, clock: ServerClock, failuresPerMinute: Int, window: Duration = .seconds(60)) {
        self.store = store
        self.clock = clock
        self.allowance = Int64(failuresPerMinute)
        self.window = window
    }

    private func cutoff(_ now: Int64) -> Int64 { now.addingSaturating(-window.microseconds) }

    func check(_ source: String) async throws {
        let now = clock.timestamp().microseconds
        // Pruning is housekeeping: a failure is retried a minute later, never this request's failure.
        if cleanup.claim() { try? await store.removeAuthenticationFailures(before: cutoff(now)) }
        if try await store.authenticationFailures(of: source, since: cutoff(now)) >= allowance {
            throw ServerError(.rateLimited, "too many failed attempts; try again in a minute")
        }
    }

    func recordFailure(_ source: String, logger: Logger) async {
        let now = clock.timestamp().microseconds
        do {
            try await store.recordAuthenticationFailure(of: source, now: now, cutoff: cutoff(now))
        } catch {
            // The request already failed for its own reason; a lost count only loosens the limit for this attempt.
            logger.warning("could not count a failed credential attempt", metadata: ["error": "\(error)"])
        }
    }
}
