// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Dynamic instrumentation in this process: Frida's agent or gadget (or Substrate, Xposed-style injectors) mapped
/// into memory (`/proc/self/maps`), or Frida's threads (`/proc/self/task/*/comm`).
public struct InstrumentationCheck: IntegrityCheck {
    /// Substrings of mapped file names that mark an instrumentation library.
    public static let libraryMarkers = [
        "frida-agent", "frida-gadget", "libfrida", "frida/", "gum-js", "libsubstrate", "libxposed", "libinject",
    ]
    /// Thread names (or their prefixes) that Frida's agent runs.
    public static let threadMarkers = ["gum-js-loop", "gmain-frida", "frida", "pool-frida", "gum-"]

    public init() {}
    public var name: String { "instrumentation" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        var evidence: [String] = []
        guard let maps = SystemFiles.text("/proc/self/maps", limit: 16 << 20) else {
            return [IntegrityObservation(.checkUnavailable, "/proc/self/maps could not be read", evidence: [name])]
        }
        var seen: Set<Substring> = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = line[slash...]
            let lower = path.lowercased()
            if Self.libraryMarkers.contains(where: lower.contains), seen.insert(path).inserted {
                evidence.append("mapped: \(path)")
            }
        }
        // No thread list, no thread evidence; the maps check above still runs.
        if let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            for thread in threads.prefix(4096) {
                guard let name = SystemFiles.text("/proc/self/task/\(thread)/comm", limit: 64) else { continue }
                let command = name.trimmingCharacters(in: .whitespacesAndNewlines)
                if Self.threadMarkers.contains(where: { command.hasPrefix($0) }) {
                    evidence.append("thread: \(command)")
                }
            }
        }
        guard !evidence.isEmpty else { return [] }
        return [
            IntegrityObservation(.instrumentation, "instrumentation is loaded into this process", evidence: evidence)
        ]
    }
}
