// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore

/// Runs a task's jobs on a NIO event loop instead of the global cooperative pool.
///
/// The handshake waits for certificate verification, which swift-certificates only offers as `async`. On the
/// global pool that work queues behind whatever occupies its few threads (on a two-core machine, two blocked
/// threads stall every handshake until the server gives up); on the connection's own event loop it runs at once.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
