// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization

/// The one way Strongroom runs blocking work (file reads and writes, `fsync`, `flock`, SQLite, CPU-heavy matching)
/// from async code: on Dispatch worker threads, never on a thread of the cooperative pool, so a slow disk or a long
/// computation cannot stall other tasks.
///
/// ``shared`` runs independent jobs concurrently; a serial executor (one per database connection or file, GRDB's
/// `DatabaseQueue` idea) runs its jobs one at a time in submission order.
package final class BlockingExecutor: Sendable {
    /// Concurrent work with no ordering between jobs.
    package static let shared = BlockingExecutor(label: "strongroom.blocking", serial: false)

    private let queue: DispatchQueue

    /// A new executor; `serial` ones run one job at a time.
    package init(label: String, serial: Bool) {
        queue = DispatchQueue(label: label, attributes: serial ? [] : .concurrent)
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
                queue.async {
                    continuation.resume(returning: Result { () throws(E) -> R in try body { cancelled.isSet } })
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
