// Strongroom — SPDX-License-Identifier: Apache-2.0
import CShield
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Core dumps enabled while secrets are loaded: a non-zero `RLIMIT_CORE` soft limit and the dumpable flag, so a
/// crash writes the process's memory (keys included) to disk. ``Hardening/disableCoreDumps()`` clears it.
public struct CoreDumpCheck: IntegrityCheck {
    public init() {}
    public var name: String { "core-dumps" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        guard context.secretsLoaded else { return [] }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 else { return [] }
        guard limit.rlim_cur != 0, cshield_get_dumpable() == 1 else { return [] }
        let pattern =
            SystemFiles.text("/proc/sys/kernel/core_pattern", limit: 4096)?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        let size = limit.rlim_cur == rlim_t.max ? "unlimited" : "\(limit.rlim_cur)"
        return [
            IntegrityObservation(
                .coreDumps,
                "a crash would write this process's memory, secrets included, to a core file",
                evidence: ["RLIMIT_CORE \(size)", "dumpable 1", "core_pattern \(pattern)"]
            )
        ]
    }
}
