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

    /// Marks a serial executor's queue with the executor's identity, so that a job can tell it runs there.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// A serial executor's queue as a Swift task executor (nil for a concurrent executor): see ``taskExecutor``.
    private let preferred: SerialQueueTaskExecutor?

    /// A new executor; `serial` ones run one job at a time, in submission order.
    package init(label: String, serial: Bool) {
        let count = serial ? 0 : Self.lanes
        lanes = (0..<count).map { DispatchQueue(label: "\(label).\($0)") }
        busy = Mutex(Array(repeating: false, count: count))
        overflow = DispatchQueue(label: label, attributes: serial ? [] : .concurrent)
        preferred = serial ? SerialQueueTaskExecutor(queue: overflow) : nil
        if serial { overflow.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self)) }
    }

    /// A serial executor's queue as a task executor, for `withTaskExecutorPreference`: a task that prefers it runs
    /// its nonisolated code as jobs of this queue — never on the cooperative pool — and ``run(_:)`` then runs a
    /// body in place, in the task's own job, instead of handing it to the queue and waiting (two thread hand-offs).
    /// The queue stays serial: the task's job is one of its jobs. Nil for a concurrent executor.
    package var taskExecutor: (any TaskExecutor)? { preferred }

    /// Whether the caller is a job of this serial executor (a task preferring ``taskExecutor``).
    package var isCurrent: Bool {
        preferred != nil && DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
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
        // Already one of this serial queue's jobs (the task prefers it): the body runs here, in order, with nothing
        // else of the queue's running — what a hand-off to the queue would give, without the two thread wake-ups.
        if isCurrent { return try body { Task.isCancelled } }
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

/// A serial Dispatch queue as a Swift task executor: each job of a task that prefers it runs as one block of the
/// queue.
private final class SerialQueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
