// Strongroom — SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The one serving SQLite connection, taken in turns: a transaction holds it from `BEGIN` to `COMMIT`, and every
/// other statement (a read, a group insert) waits for its turn. Without it, a statement of another request that ran
/// while a transaction was open became part of that transaction — rolled back with it although acknowledged — and a
/// second transaction's `BEGIN` failed ("cannot start a transaction within a transaction"). First come, first served.
final class ConnectionGate: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` holding the connection.
    func run<R>(_ body: () async throws -> R) async rethrows -> R {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
