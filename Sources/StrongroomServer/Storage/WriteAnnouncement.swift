// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One announcement's text, as instances sharing a database send it to each other: `v1 INSTANCE` on the first line,
/// then one record type per line, or `*` for ``AnnouncedWrites/unknown``. A message stays under ``maximumBytes``
/// (PostgreSQL's `NOTIFY` payload takes 8,000): more types are sent as several messages.
///
/// A message is read with every bound checked first (it crosses the database, which other processes write): an
/// unknown first line, more than ``maximumTypes`` lines or a line longer than ``maximumTypeBytes`` makes it
/// ``AnnouncedWrites/unknown`` — wake everyone, which is always safe — never an error.
public struct WriteAnnouncement: Sendable, Hashable {
    /// The most bytes of one message.
    public static let maximumBytes = 7_900
    /// The most types one message names.
    public static let maximumTypes = 1_000
    /// The longest type a message names (the server's type names are shorter).
    public static let maximumTypeBytes = 1_024

    /// The announcing instance (a random ID per process, so an instance skips its own announcements).
    public var instance: String
    /// What was written.
    public var writes: AnnouncedWrites

    public init(instance: String, writes: AnnouncedWrites) {
        (self.instance, self.writes) = (instance, writes)
    }

    /// The messages that carry `writes` from `instance`, each under ``maximumBytes`` (types too long to name make
    /// the announcement ``AnnouncedWrites/unknown``).
    public static func messages(instance: String, _ writes: AnnouncedWrites) -> [String] {
        let head = "v1 \(instance)"
        guard case .types(let types) = writes,
            types.allSatisfy({ $0.utf8.count <= maximumTypeBytes && !$0.contains("\n") })
        else { return [head + "\n*"] }
        var messages: [String] = []
        var current = head
        var count = 0
        for type in types.sorted() {
            if count == maximumTypes || current.utf8.count + 1 + type.utf8.count > maximumBytes {
                messages.append(current)
                (current, count) = (head, 0)
            }
            current += "\n" + type
            count += 1
        }
        if count > 0 { messages.append(current) }
        return messages
    }

    /// Reads one message; nil when it is not one (its first line is not `v1 INSTANCE`).
    public init?(message: String) {
        guard message.utf8.count <= Self.maximumBytes + 100 else { return nil }
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let first = lines.popFirst(), first.hasPrefix("v1 "), first.utf8.count <= 200 else { return nil }
        instance = String(first.dropFirst(3))
        guard lines.count <= Self.maximumTypes, !lines.contains("*"),
            lines.allSatisfy({ !$0.isEmpty && $0.utf8.count <= Self.maximumTypeBytes })
        else {
            writes = .unknown
            return
        }
        writes = .types(Set(lines.map(String.init)))
    }
}
