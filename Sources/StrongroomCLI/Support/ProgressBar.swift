// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import Synchronization

/// A one-line progress bar on standard error (only when it is a terminal, or when forced for tests).
final class ProgressBar: Sendable {
    private let total: Int64?
    private let enabled: Bool
    private let last = Mutex<(stage: String, percent: Int)>(("", -1))

    /// A bar for `total` bytes; with nil, the bytes done are shown instead of a bar.
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

    /// Redraws when the stage or the whole percentage changed.
    func update(stage: String, done: Int64) {
        guard enabled else { return }
        let percent = total.map { Int(min(100, done * 100 / $0)) } ?? Int(done >> 20)
        let changed = last.withLock { last -> Bool in
            guard last.stage != stage || last.percent != percent else { return false }
            last = (stage, percent)
            return true
        }
        guard changed else { return }
        let label = stage.padding(toLength: 11, withPad: " ", startingAt: 0)
        let line: String
        if total == nil {
            line = "\r\(label) \(percent) MiB"
        } else {
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            line = "\r\(label) [\(bar)] \(percent)%"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Ends the line.
    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
