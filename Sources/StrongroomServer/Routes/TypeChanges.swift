// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import Synchronization

/// Wakes the long-polls (`POST /v2/sync/changes`) waiting on a type when this process commits a write of that type,
/// and only those: a write of one type never makes the waiters of another look again.
///
/// A waiter registers before it first looks at the database, so a write committed while it looks is not lost: the
/// registration remembers it and the next ``wait(_:timeout:)`` returns at once. Writes by other processes sharing the
/// database are seen at the waiter's next timed look instead. Holds one entry per registered waiter, so it is bounded
/// by the long-polls the server admits.
final class TypeChanges: Sendable {
    /// One registered waiter.
    struct Ticket: Sendable, Hashable {
        fileprivate let id: Int
    }

    private struct Waiter {
        let type: String
        var signalled = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
        var byType: [String: Set<Int>] = [:]
    }

    private let state = Mutex(State())

    /// Registers a waiter on `type`; end it with ``unregister(_:)``.
    func register(_ type: String) -> Ticket {
        state.withLock { state in
            state.nextID &+= 1
            let id = state.nextID
            state.waiters[id] = Waiter(type: type)
            state.byType[type, default: []].insert(id)
            return Ticket(id: id)
        }
    }

    /// Ends a waiter (waking it if it waits).
    func unregister(_ ticket: Ticket) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: ticket.id) else { return nil }
            state.byType[waiter.type]?.remove(ticket.id)
            if state.byType[waiter.type]?.isEmpty == true { state.byType[waiter.type] = nil }
            return waiter.continuation
        }
        continuation?.resume()
    }

    /// Wakes the waiters of each of `types` (and marks those not waiting right now).
    func signal<Types: Sequence<String>>(_ types: Types) {
        var woken: [CheckedContinuation<Void, Never>] = []
        state.withLock { state in
            for type in types {
                for id in state.byType[type] ?? [] { woken += Self.mark(id, in: &state) }
            }
        }
        for continuation in woken { continuation.resume() }
    }

    /// Wakes every waiter (a shutdown).
    func signalAll() {
        let woken = state.withLock { state in state.waiters.keys.flatMap { Self.mark($0, in: &state) } }
        for continuation in woken { continuation.resume() }
    }

    /// A waiting waiter's continuation (taken, to be resumed); a waiter not waiting right now is marked instead, so
    /// that its next wait returns at once.
    private static func mark(_ id: Int, in state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard let continuation = state.waiters[id]?.continuation else {
            state.waiters[id]?.signalled = true
            return []
        }
        state.waiters[id]?.continuation = nil
        return [continuation]
    }

    /// Returns when a write of the ticket's type was signalled since the last wait returned (at once if one was),
    /// after `timeout`, or when the task is cancelled — whichever comes first.
    func wait(_ ticket: Ticket, timeout: Duration) async {
        await waitForSignal(
            timeout: timeout,
            park: { continuation in
                state.withLock { state in
                    guard var waiter = state.waiters[ticket.id], !waiter.signalled else {
                        state.waiters[ticket.id]?.signalled = false
                        return false
                    }
                    waiter.continuation = continuation
                    state.waiters[ticket.id] = waiter
                    return true
                }
            },
            wake: { [weak self] in self?.wake(ticket) }
        )
    }

    private func wake(_ ticket: Ticket) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiters[ticket.id]?.continuation = nil }
            return state.waiters[ticket.id]?.continuation
        }
        continuation?.resume()
    }
}
