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
/// A concurrent executor first uses ``lanes`` serial Dispatch queues, a job going to a lane with nothing to do, and
/// only when every lane is busy a concurrent Dispatch queue. Not that queue alone: on Linux, libdispatch runs a
/// concurrent queue's busy jobs on only as many threads as there are cores (it adds threads for jobs blocked in the
/// kernel, after a while, never for busy ones), so on two cores two long Argon2id derivations held every short job
/// (an `unlink`, a `close`) behind them, and a cancelled upload waited minutes to remove its staged file. Serial
/// queues run on Dispatch's overcommitting threads: the lanes give two threads more than the cores at once, enough
/// for short jobs to pass busy ones without letting blocking work crowd out the cooperative pool and the event loops,
/// and the concurrent queue keeps libdispatch's growth for jobs that wait on the kernel.
package final class BlockingExecutor: Sendable {
    /// Concurrent work with no ordering between jobs.
    package static let shared = BlockingExecutor(label: "strongroom.blocking", serial: false)

    /// How many jobs a concurrent executor starts at once on threads of its own: the cores, and two more.
    package static let lanes = ProcessInfo.processInfo.activeProcessorCount + 2

    private let lanes: [DispatchQueue]
    /// Whether each lane is running a job.
    private let busy: Mutex<[Bool]>
    /// Where jobs go while every lane is busy (the executor itself when it is serial).
    private let overflow: DispatchQueue

    /// A new executor; `serial` ones run one job at a time, in submission order.
    package init(label: String, serial: Bool) {
        let count = serial ? 0 : Self.lanes
        lanes = (0..<count).map { DispatchQueue(label: "\(label).\($0)") }
        busy = Mutex(Array(repeating: false, count: count))
        overflow = DispatchQueue(label: label, attributes: serial ? [] : .concurrent)
    }

    /// Takes an idle lane, or nil when every one is busy.
    private func takeLane() -> Int? {
        busy.withLock { busy in
            guard let lane = busy.firstIndex(of: false) else { return nil }
            busy[lane] = true
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
                if let lane = takeLane() {
                    lanes[lane].async {
                        let result = Result { () throws(E) -> R in try body { cancelled.isSet } }
                        self.busy.withLock { $0[lane] = false }
                        continuation.resume(returning: result)
                    }
                } else {
                    overflow.async {
                        continuation.resume(returning: Result { () throws(E) -> R in try body { cancelled.isSet } })
                    }
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
