// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import Logging
import Synchronization

/// `GET /ready`: 200 when the database answers within two seconds and its schema is the one this build expects, else
/// 503 — for a load balancer to stop sending requests to an instance that cannot serve them (`/health` only says
/// that the process runs).
///
/// The route needs no credentials, so probes are bounded: a probe of a hung database is left running past its
/// deadline, and while ``maximumOutstanding`` of them are still running, `/ready` answers 503 without starting
/// another.
struct Readiness: Sendable {
    static let maximumOutstanding = 8
    let store: any ServerStore
    let logger: Logger
    private let outstanding = OutstandingProbes()

    init(store: any ServerStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    func respond() async throws -> Response {
        let reason: String
        if outstanding.begin(limit: Self.maximumOutstanding) {
            do {
                let current = try await withDeadline(.seconds(2)) { [store, outstanding] in
                    defer { outstanding.end() }
                    return try await store.isSchemaCurrent()
                }
                switch current {
                case true?: return try json(["status": "ready"])
                case false?: reason = "the database schema is not current"
                case nil: reason = "the database did not answer within 2 s"
                }
            } catch {
                reason = "the database does not answer"
                logger.warning("not ready", metadata: ["reason": .string("\(error)")])
            }
        } else {
            reason = "earlier probes are still waiting for the database"
        }
        return try json(["status": "not ready", "reason": reason], status: .serviceUnavailable)
    }
}

/// How many readiness probes are running (including those past their deadline).
private final class OutstandingProbes: Sendable {
    private let count = Mutex(0)

    /// Counts a new probe unless `limit` are running; whether it may start.
    func begin(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func end() { count.withLock { $0 -= 1 } }
}

/// The result of `body`, or nil when it has not finished after `limit`. A database call that hangs does not hold the
/// caller: it is left to finish (or time out in its pool) on its own.
private func withDeadline<T: Sendable>(
    _ limit: Duration,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let answer = FirstAnswer<T?>()
    return try await withCheckedThrowingContinuation { continuation in
        answer.continuation.withLock { $0 = continuation }
        let timer = Task {
            // Cancellation ends the wait early, which is what a cancelled probe wants.
            try? await Task.sleep(for: limit)
            answer.continuation.withLock { $0.take() }?.resume(returning: nil)
        }
        Task {
            let result: Result<T?, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            answer.continuation.withLock { $0.take() }?.resume(with: result)
            timer.cancel()
        }
    }
}

/// A continuation that the first of several tasks resumes.
private final class FirstAnswer<T: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
}
