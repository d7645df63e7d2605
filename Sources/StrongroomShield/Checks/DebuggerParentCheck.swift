// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The parent process is a debugger or tracer, by its command name.
public struct DebuggerParentCheck: IntegrityCheck {
    /// Command names of debuggers, tracers and instrumentation launchers.
    public static let debuggers: Set<String> = [
        "gdb", "gdbserver", "lldb", "lldb-server", "strace", "ltrace", "valgrind", "rr", "frida", "frida-server",
        "perf", "bpftrace", "radare2", "r2", "edb", "memcheck-amd64-",
    ]

    public init() {}
    public var name: String { "debugger-parent" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        guard let status = SystemFiles.text("/proc/self/status", limit: 64 << 10),
            let field = SystemFiles.statusField("PPid", in: status), let parent = Int(field)
        else {
            return [IntegrityObservation(.checkUnavailable, "the parent process could not be read", evidence: [name])]
        }
        guard let command = SystemFiles.commandName(of: parent),
            Self.debuggers.contains(command) || command.hasPrefix("valgrind") || command.hasPrefix("frida")
        else { return [] }
        return [
            IntegrityObservation(
                .debuggerParent,
                "the parent process is a debugger or tracer",
                evidence: ["parent: \(command) (pid \(parent))"]
            )
        ]
    }
}
