// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import Synchronization

/// The server's open connections, for the connection cap: each one says when it becomes idle or busy, and a new
/// connection at the cap displaces the one idle the longest.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        var channel: any Channel
        /// When it became idle, or nil while a request is in progress.
        var idleSince: NIODeadline?
    }

    private let maximum: Int
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    init(maximum: Int) { self.maximum = maximum }

    /// Registers a new connection; false when the server is full and no idle connection could make room.
    func open(_ id: ObjectIdentifier, channel: any Channel, now: NIODeadline) -> Bool {
        let (admitted, evicted): (Bool, (any Channel)?) = entries.withLock { entries in
            var victim: (any Channel)?
            if entries.count >= maximum {
                var oldest: (key: ObjectIdentifier, since: NIODeadline)?
                for (key, entry) in entries {
                    if let since = entry.idleSince, since < oldest?.since ?? .distantFuture { oldest = (key, since) }
                }
                guard let oldest else { return (false, nil) }
                victim = entries.removeValue(forKey: oldest.key)?.channel
            }
            entries[id] = Entry(channel: channel, idleSince: now)
            return (true, victim)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    func markIdle(_ id: ObjectIdentifier, since: NIODeadline) { entries.withLock { $0[id]?.idleSince = since } }

    func markBusy(_ id: ObjectIdentifier) { entries.withLock { $0[id]?.idleSince = nil } }

    func close(_ id: ObjectIdentifier) { _ = entries.withLock { $0.removeValue(forKey: id) } }
}
