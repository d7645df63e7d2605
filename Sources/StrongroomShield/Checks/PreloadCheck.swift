// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Libraries injected by the dynamic loader: `LD_PRELOAD`/`LD_AUDIT` in the environment, the same variables in the
/// environment the process started with (`/proc/self/environ`) when a library removed them from `getenv`'s view,
/// and `/etc/ld.so.preload`.
public struct PreloadCheck: IntegrityCheck {
    /// The loader's injection variables.
    public static let variables = ["LD_PRELOAD", "LD_AUDIT"]

    public init() {}
    public var name: String { "preload" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        var observations: [IntegrityObservation] = []
        var visible: Set<String> = []
        for variable in Self.variables {
            guard let value = context.environment[variable], !value.isEmpty else { continue }
            visible.insert(variable)
            observations.append(
                IntegrityObservation(
                    .preloadVariable,
                    "\(variable) injects libraries into this process",
                    evidence: ["\(variable)=\(value)"]
                )
            )
        }
        // The environment block the kernel gave the process at exec, which unsetenv cannot change.
        if let initial = SystemFiles.bytes("/proc/self/environ", limit: 4 << 20) {
            for entry in initial.split(separator: 0, omittingEmptySubsequences: true) {
                let text = String(decoding: entry, as: UTF8.self)
                for variable in Self.variables where text.hasPrefix(variable + "=") && !visible.contains(variable) {
                    guard text.count > variable.count + 1 else { continue }
                    observations.append(
                        IntegrityObservation(
                            .preloadHidden,
                            "\(variable) was set at start but has been removed from the environment",
                            evidence: ["at exec: \(text)", "getenv: unset"]
                        )
                    )
                }
            }
        } else {
            observations.append(
                IntegrityObservation(.checkUnavailable, "/proc/self/environ could not be read", evidence: [name])
            )
        }
        if let preload = SystemFiles.text("/etc/ld.so.preload", limit: 64 << 10) {
            let libraries = preload.split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("#") }
            if !libraries.isEmpty {
                observations.append(
                    IntegrityObservation(
                        .preloadFile,
                        "/etc/ld.so.preload loads libraries into every process",
                        evidence: libraries.map(String.init)
                    )
                )
            }
        }
        return observations
    }
}
