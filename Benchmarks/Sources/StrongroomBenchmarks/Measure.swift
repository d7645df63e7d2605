// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs `body` `iterations` times and returns operations per second (best of `rounds`).
func opsPerSecond(iterations: Int, rounds: Int = 3, _ body: () throws -> Void) rethrows -> Double {
    var best = 0.0
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        let elapsed = try clock.measure { for _ in 0..<iterations { try body() } }
        best = max(best, Double(iterations) / elapsed.seconds)
    }
    return best
}

/// Megabytes (10^6 bytes) per second for `bytes` processed in `duration`.
func megabytesPerSecond(_ bytes: Int64, _ duration: Duration) -> Double {
    Double(bytes) / 1_000_000 / duration.seconds
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The process's peak resident set size in MiB (`VmHWM` from /proc/self/status), or nil off Linux.
func peakResidentMiB() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.split(separator: " ").compactMap { Double($0) }
        if let kib = digits.first { return kib / 1024 }
    }
    return nil
}

/// A row of the printed table: our figure, its anchor, and the ratio.
func row(_ label: String, ours: Double, anchor: Double, unit: String, anchorLabel: String) {
    let ratio = ours / anchor
    print(
        label.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(
                format: "%12.1f %@   %-28@ %12.1f %@   ratio %5.1f%%",
                ours,
                unit,
                anchorLabel,
                anchor,
                unit,
                ratio * 100
            )
    )
}
