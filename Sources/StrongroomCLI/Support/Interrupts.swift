// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import StrongroomCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and `kill`: the first SIGINT or SIGTERM cancels the running command, which unwinds and removes what it
/// staged; whatever is still staged after a short grace (work that could not stop at once) is removed here, and the
/// process prints `cancelled` and exits 130. A second signal skips the grace. Plaintext being decrypted is in unnamed
/// files that vanish with the process anyway (`NewFile`).
enum Interrupts {
    /// How long a cancelled command may take to unwind before the process ends anyway.
    static let grace: DispatchTimeInterval = .seconds(2)

    /// Runs `work` with SIGINT and SIGTERM handled as above. Never returns when interrupted.
    static func run(_ work: @escaping @Sendable () async -> Void) async {
        // The handlers are in place before the work starts, so a signal the moment it has begun still cancels it.
        let running = Mutex<Task<Void, Never>?>(nil)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)  // delivered to the source below instead of ending the process
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupted(running.withLock { $0 }) }
            source.resume()
            return source
        }
        let task = Task { await work() }
        running.withLock { $0 = task }
        await task.value
        for source in sources { source.cancel() }
    }

    private static let signals = Mutex(0)
    private static let resumption = Mutex<String?>(nil)

    /// What the user can do about work an interrupt stops half-way (printed after `cancelled`), such as running the
    /// same command again.
    static func hint(_ text: String) { resumption.withLock { $0 = text } }

    private static func interrupted(_ task: Task<Void, Never>?) {
        let count = signals.withLock {
            $0 += 1
            return $0
        }
        guard count == 1, let task else { finish() }
        task.cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { finish() }
    }

    /// Removes what is still staged, says so, and exits 130 (128 + SIGINT, as shells report an interrupt).
    static func finish() -> Never {
        StagedFiles.removeAll()
        let hint = resumption.withLock { $0 }.map { ": \($0)" } ?? ""
        FileHandle.standardError.write(Data("\ncancelled\(hint)\n".utf8))
        exit(130)
    }

    /// Whether a signal arrived (a command that failed after one reports `cancelled`, not its own error).
    static var wasInterrupted: Bool { signals.withLock { $0 > 0 } }
}
