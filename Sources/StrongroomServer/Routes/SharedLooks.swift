// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire
import Synchronization

/// Coalesces the looks of long-polls (`POST /v2/sync/changes`) that wait on the same type from the same index: one
/// write wakes every subscriber of its type at once, and they would each run the same statements. Here the first
/// look of a (type, index) starts a runner; every look asked for that pair while a batch runs joins the next one,
/// which asks the store once for all its callers (``SyncStore/changeWindows(type:after:window:callers:)``, at most
/// 1,000 callers a batch). Nothing waits for a batch to fill: a look that finds no batch running starts one at once.
///
/// The runner is a task of its own, so a caller that goes away does not cancel its batch's statements for the
/// others. Holds one entry per waiting look, so it is bounded by the long-polls the server admits.
final class SharedLooks: Sendable {
    /// What one look found for one caller.
    struct Outcome: Sendable, Equatable {
        /// The first record the caller may read after the index (not a replica's checkpoint record).
        var hit: Int64?
        /// The highest index examined, where the next look starts; nil when nothing was examined (nothing after
        /// the index, or the caller may read nothing of the type).
        var last: Int64?
    }

    private struct Key: Hashable {
        var type: String
        var after: Int64
    }

    private struct Member {
        var caller: String
        var continuation: CheckedContinuation<Result<Outcome, any Error>, Never>
    }

    /// The most callers one batch asks about.
    static let batchSize = 1_000

    private let store: any SyncStore
    private let metrics: ServerMetrics
    private let window: Int
    private let pending = Mutex<[Key: [Member]]>([:])

    init(store: any SyncStore, metrics: ServerMetrics, window: Int) {
        (self.store, self.metrics, self.window) = (store, metrics, window)
    }

    /// Looks at `type` after `after` for `caller`, with whoever else looks at the same pair meanwhile.
    func look(type: String, after: Int64, caller: String) async throws -> Outcome {
        let key = Key(type: type, after: after)
        let result = await withCheckedContinuation { continuation in
            let starts = pending.withLock { pending -> Bool in
                let running = pending[key] != nil
                pending[key, default: []].append(Member(caller: caller, continuation: continuation))
                return !running
            }
            if starts { Task { await self.run(key) } }
        }
        return try result.get()
    }

    /// Answers batches of `key` until no look of it waits. A key stays in `pending` (possibly empty) while its
    /// runner runs, so a look arriving meanwhile joins the next batch instead of starting a second runner.
    private func run(_ key: Key) async {
        while true {
            let batch = pending.withLock { pending -> [Member] in
                guard let members = pending[key], !members.isEmpty else {
                    pending[key] = nil
                    return []
                }
                let taken = Array(members.prefix(Self.batchSize))
                pending[key] = Array(members.dropFirst(taken.count))
                return taken
            }
            guard !batch.isEmpty else { return }
            let callers = Set(batch.map(\.caller))
            let found: Result<ChangeWindows, any Error>
            do {
                found = .success(
                    try await store.changeWindows(type: key.type, after: key.after, window: window, callers: callers)
                )
            } catch {
                found = .failure(error)
            }
            if case .success(let windows) = found { metrics.examinedByLongPolls(windows.examined) }
            for member in batch {
                member.continuation.resume(
                    returning: found.map { windows in
                        guard windows.mayRead.contains(member.caller) else { return Outcome(hit: nil, last: nil) }
                        return Outcome(
                            hit: windows.firstReadable(
                                by: member.caller,
                                checkpointKey: ReplicatedType.PlainKey.checkpoint
                            ),
                            last: windows.last
                        )
                    }
                )
            }
        }
    }
}
