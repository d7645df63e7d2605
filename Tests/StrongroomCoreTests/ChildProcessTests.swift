// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test support's child processes: a child's exit is seen when it happens, whatever else runs beside it.
@Suite struct ChildProcessTests {
    /// The test's children: the long-lived ones, ended by the test (or by the hang guard), and what went wrong.
    final class Children: Sendable {
        /// The long-lived children's process IDs.
        let sleepers = Mutex<[Int32]>([])
        let endedByGuard = Mutex(false)
        /// What went wrong on the threads that start children.
        let failures = Mutex<[String]>([])

        /// Starts a child that sleeps until it is killed.
        func startSleeper() throws {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sleep")
            process.arguments = ["infinity"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            sleepers.withLock { $0.append(process.processIdentifier) }
        }

        func killSleepers() { for pid in sleepers.withLock({ $0 }) { kill(pid, SIGKILL) } }
    }

    @Test("a child's exit is seen at once, even while long-lived children started at the same moment still run")
    func exitSeenBesideLongLivedChildren() async throws {
        // Long-lived children (a test's servers) start while short-lived ones (tools) start on other threads. Had a
        // short child's exit socket gone to a long-lived one, its wait would end only with that child: not before the
        // test ends, here. Started with plain `run()`, this test hung in its first try on this machine.
        let children = Children()
        defer { children.killSleepers() }
        // A hang fails the test instead of stalling CI: after ten minutes the sleepers end, which ends the runs.
        let hangGuard = Task {
            try await Task.sleep(for: .seconds(600))
            children.endedByGuard.withLock { $0 = true }
            children.killSleepers()
        }
        defer { hangGuard.cancel() }
        // Eight threads start children at once, a long-lived one before every other short-lived one waited for
        // (threads of their own: the cooperative pool's two would rarely start two children at the same moment).
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        Thread {
                            do {
                                for step in 0..<80 {
                                    if step % 2 == 0 { try children.startSleeper() }
                                    let process = ChildProcess()
                                    process.executableURL = URL(fileURLWithPath: "/bin/true")
                                    try process.run()
                                    process.waitUntilExit()
                                }
                            } catch {
                                children.failures.withLock { $0.append("\(error)") }
                            }
                            continuation.resume()
                        }.start()
                    }
                }
            }
        }
        #expect(children.failures.withLock { $0 }.isEmpty)
        let ended = children.endedByGuard.withLock { $0 }
        #expect(!ended, "a child's exit was seen only when the children started beside it ended")
    }
}
