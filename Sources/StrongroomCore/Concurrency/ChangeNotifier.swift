// Strongroom — SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Wakes waiters when this process commits a write: the followers of a datastore's changes feed, the server's
/// long-polls for new records. Writes by other processes are seen at the waiter's next poll instead.
package final class ChangeNotifier: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// How many commits have been signalled.
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// Wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Returns after a commit later than `seen`, after `timeout`, or when the task is cancelled — whichever comes
    /// first.
    package func wait(after seen: UInt64, timeout: Duration) async {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        await waitForSignal(
            timeout: timeout,
            park: { continuation in
                state.withLock { state in
                    guard state.generation == seen else { return false }
                    state.waiters[id] = continuation
                    return true
                }
            },
            wake: { [weak self] in self?.resume(id) }
        )
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
