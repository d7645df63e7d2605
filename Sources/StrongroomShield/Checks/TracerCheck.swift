// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A tracer attached to this process: `TracerPid` in `/proc/self/status` (strace, gdb, a `PTRACE_TRACEME` parent).
public struct TracerCheck: IntegrityCheck {
    public init() {}
    public var name: String { "tracer" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        guard let status = SystemFiles.text("/proc/self/status", limit: 64 << 10),
            let field = SystemFiles.statusField("TracerPid", in: status), let pid = Int(field)
        else {
            return [IntegrityObservation(.checkUnavailable, "TracerPid could not be read", evidence: ["tracer"])]
        }
        guard pid != 0 else { return [] }
        let tracer = SystemFiles.commandName(of: pid) ?? "unknown"
        return [
            IntegrityObservation(
                .tracerAttached,
                "a process is tracing this one",
                evidence: ["TracerPid: \(pid)", "tracer: \(tracer)"]
            )
        ]
    }
}
