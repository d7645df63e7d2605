// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import StrongroomCore
import Synchronization
import Testing

/// The shared blocking executor runs a short job while long ones hold threads, whatever the number of cores: the
/// cause of a cancelled upload waiting minutes on a busy machine to remove its staged file (issue 53 item 6).
@Suite struct BlockingExecutorTests {
    @Test(
        "a short job completes while more long jobs than this machine has cores are still running",
        .timeLimit(.minutes(10))
    )
    func shortJobsOvertakeLongOnes() async throws {
        // The holders spin (CPU-bound, like an Argon2id derivation) rather than sleep: libdispatch adds threads for
        // blocked workers after a while, never for busy ones.
        let release = CancellationFlag()
        let started = DispatchSemaphore(value: 0)
        let holders = ProcessInfo.processInfo.activeProcessorCount  // as many busy jobs as there are cores
        let held = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<holders {
                    group.addTask {
                        await BlockingExecutor.shared.run { _ in
                            started.signal()
                            while !release.isSet {}  // held until the short job below has run
                        }
                    }
                }
            }
        }
        // Every holder occupies a thread before the short job is submitted.
        await BlockingExecutor(label: "test.wait", serial: true).run { _ in
            for _ in 0..<holders { started.wait() }
        }
        let answer = await BlockingExecutor.shared.run { _ in 42 }
        #expect(answer == 42)
        release.set()
        await held.value
    }

    @Test("a serial executor runs its jobs one at a time, in submission order")
    func serialOrder() async throws {
        let executor = BlockingExecutor(label: "test.serial", serial: true)
        let order = Mutex<[Int]>([])
        for value in 0..<20 {
            await executor.run { _ in order.withLock { $0.append(value) } }
        }
        #expect(order.withLock { $0 } == Array(0..<20))
    }
}
