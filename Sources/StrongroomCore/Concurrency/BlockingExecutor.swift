// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Synchronization

/// The one way Strongroom runs blocking work (file reads and writes, `fsync`, `flock`, SQLite, CPU-heavy matching)
/// from async code: on Dispatch worker threads, never on a thread of the cooperative pool, so a slow disk or a long
/// computation cannot stall other tasks.
///
/// ``shared`` runs independent jobs concurrently; a serial executor (one per database connection or file, GRDB's
/// `DatabaseQueue` idea) runs its jobs one at a time in submission order.
///
/// A concurrent executor is ``lanes`` serial Dispatch queues, each job going to the lane with the fewest jobs
/// waiting. Not one concurrent queue: on Linux, libdispatch runs a concurrent queue's busy jobs on only as many
/// threads as there are cores, so on two cores two long Argon2id derivations held every short job (an `unlink`, a
/// `close`) behind them, and a cancelled upload waited minutes to remove its staged file. Serial queues run on
/// Dispatch's overcommitting threads, so up to ``lanes`` jobs run at once: two more than the cores, enough for short
/// jobs to pass busy ones without letting blocking work crowd out the cooperative pool and the event loops.
package final class BlockingExecutor: Sendable {
    /// Concurrent work with no ordering between jobs.
    package static let shared = BlockingExecutor(label: "strongroom.blocking", serial: false)

    /// How many jobs a concurrent executor runs at once at most: the cores, and two more.
    package static let lanes = ProcessInfo.processInfo.activeProcessorCount + 2

    private let queues: [DispatchQueue]
    /// Jobs submitted to each lane and not finished.
    private let pending: Mutex<[Int]>

    /// A new executor; `serial` ones run one job at a time.
    package init(label: String, serial: Bool) {
        let count = serial ? 1 : Self.lanes
        queues = (0..<count).map { DispatchQueue(label: count == 1 ? label : "\(label).\($0)") }
        pending = Mutex(Array(repeating: 0, count: count))
    }

    /// Takes the lane with the fewest unfinished jobs (the first of equals) for one more job.
    private func takeLane() -> Int {
        pending.withLock { pending in
            let lane = pending.indices.min { pending[$0] < pending[$1] } ?? 0
            pending[lane] += 1
            return lane
        }
    }

    /// Runs `body` on this executor and waits for it without holding a cooperative thread.
    ///
    /// `body` receives a check that turns true once the calling task is cancelled; long jobs should test it between
    /// blocks and stop with their own cancellation error.
    package func run<R: Sendable, E: Error>(
        _ body: @escaping @Sendable (_ isCancelled: @Sendable () -> Bool) throws(E) -> R
    ) async throws(E) -> R {
        let cancelled = CancellationFlag()
        let result: Result<R, E> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let lane = takeLane()
                queues[lane].async {
                    let result = Result { () throws(E) -> R in try body { cancelled.isSet } }
                    self.pending.withLock { $0[lane] -= 1 }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            cancelled.set()
        }
        return try result.get()
    }
}

/// A flag set once, when a task is cancelled.
package final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Whether the flag was set.
    package var isSet: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag.
    package func set() { flag.store(true, ordering: .releasing) }
}
