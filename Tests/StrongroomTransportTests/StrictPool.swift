// Strongroom — SPDX-License-Identifier: Apache-2.0
import CStrictPool
import Foundation
import NIOCore
import NIOPosix
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Called by `CStrictPool`'s constructor, before the first task, when the process runs with
/// `STRONGROOM_STRICT_POOL=1`: every Swift concurrency job from then on runs on one NIO event-loop thread.
@_cdecl("strongroom_install_strict_pool")
func installStrictPool() -> CInt {
    NIOSingletons.groupLoopCountSuggestion = 1
    return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() ? 1 : 0
}

/// The strict-pool pass proves what it claims: with the hook in place, concurrent tasks share one thread, so a
/// blocking call anywhere on the pool would stall the suites this pass runs (file, datastore, keychain, shield).
@Suite struct StrictPoolTests {
    private static let requested = ProcessInfo.processInfo.environment["STRONGROOM_STRICT_POOL"] == "1"

    @Test(.enabled(if: requested, "runs in the strict-pool pass (STRONGROOM_STRICT_POOL=1)"))
    func everyTaskRunsOnOneThread() async {
        #expect(strongroom_strict_pool_installed() == 1)
        let threads = await withTaskGroup(of: UInt.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    usleep(2_000)  // holds its thread, so a second thread (if there were one) would take the next task
                    await Task.yield()
                    return UInt(pthread_self())
                }
            }
            var seen = Set<UInt>()
            for await thread in group { seen.insert(thread) }
            return seen
        }
        #expect(threads.count == 1)
    }
}
