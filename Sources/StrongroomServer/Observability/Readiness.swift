// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import Logging
import Synchronization

/// `GET /ready`: 200 when the database answers within two seconds and its schema is the one this build expects, else
/// 503 — for a load balancer to stop sending requests to an instance that cannot serve them (`/health` only says
/// that the process runs).
func readiness(of store: any ServerStore, logger: Logger) async throws -> Response {
    let reason: String
    do {
        let current = try await withDeadline(.seconds(2)) { try await store.isSchemaCurrent() }
        switch current {
        case true?: return try json(["status": "ready"])
        case false?: reason = "the database schema is not current"
        case nil: reason = "the database did not answer within 2 s"
        }
    } catch {
        reason = "the database does not answer"
        logger.warning("not ready", metadata: ["reason": .string("\(error)")])
    }
    return try json(["status": "not ready", "reason": reason], status: .serviceUnavailable)
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
