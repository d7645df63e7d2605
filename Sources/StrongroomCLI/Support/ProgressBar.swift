// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import Synchronization

/// One progress line on standard error for every long operation (only when it is a terminal, or when forced for
/// tests): `uploading   [######--------]  42%  12.0/28.6 MiB  35.1 MiB/s` with a known total, `downloading  12.0 MiB
/// 35.1 MiB/s` without one. Each redraw clears the line it replaces.
final class ProgressBar: Sendable {
    private let total: Int64?
    private let enabled: Bool
    private let started = ContinuousClock.now
    /// The stage and tenth of a percent (or of a MiB) last drawn.
    private let last = Mutex<(stage: String, step: Int64)>(("", -1))

    /// A bar for `total` bytes; with nil, the bytes done and the rate are shown without a bar.
    init(total: Int64?, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.total = total.map { max($0, 1) }
        self.enabled = enabled
    }

    /// Redraws for a file transfer's stage.
    func update(_ progress: FileTransferProgress) {
        switch progress {
        case .encrypting(let n): update(stage: "encrypting", done: n)
        case .uploading(let n): update(stage: "uploading", done: n)
        case .downloading(let n): update(stage: "downloading", done: n)
        case .decrypting(let n): update(stage: "decrypting", done: n)
        }
    }

    /// Redraws when the stage changed or the work moved on by a thousandth (or by 0.1 MiB without a total).
    func update(stage: String, done: Int64) {
        guard enabled else { return }
        let done = max(0, done)
        let step = total.map { min(1000, done / max(1, $0 / 1000)) } ?? done / (1 << 20 / 10)
        let changed = last.withLock { last -> Bool in
            guard last.stage != stage || last.step != step else { return false }
            last = (stage, step)
            return true
        }
        guard changed else { return }
        FileHandle.standardError.write(
            Data(("\r\u{1B}[K" + Self.line(stage: stage, done: done, total: total, since: started)).utf8)
        )
    }

    /// The text of one redraw.
    static func line(stage: String, done: Int64, total: Int64?, since start: ContinuousClock.Instant) -> String {
        let label = stage.padding(toLength: 11, withPad: " ", startingAt: 0)
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let rate = seconds > 0.05 ? String(format: "  %.1f MiB/s", Double(done) / 1_048_576 / seconds) : ""
        let doneMiB = String(format: "%.1f", Double(done) / 1_048_576)
        guard let total else { return "\(label) \(doneMiB) MiB\(rate)" }
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(format: "%3d%%", Int(fraction * 100))
        return
            "\(label) [\(bar)] \(percent)  \(doneMiB)/\(String(format: "%.1f", Double(total) / 1_048_576)) MiB\(rate)"
    }

    /// Ends the line.
    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
