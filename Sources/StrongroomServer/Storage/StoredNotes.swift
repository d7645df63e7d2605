// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCore
package import StrongroomWire

/// A note: its JSON exactly as the writer sent it (ciphertext, public keys, options), plus the server's fields.
package struct StoredNote: Sendable, Hashable {
    /// The note ID (lowercase UUID).
    package var noteID: String
    /// Unique when set; nil for anonymous notes.
    package var idString: String?
    /// The note's JSON as stored and returned.
    package var body: [String: JSONValue]
    /// When it was created.
    package var created: Timestamp
    /// How many times it was read.
    package var views: Int64
    /// -1 (or 0) for unlimited.
    package var maximumViews: Int64
    /// When it stops being readable, if ever.
    package var expiresAt: Timestamp?
    /// The signing key that may read it.
    package var recipientSigningKey: String
    /// The writer's signing key (the TSV1 key that wrote it), for per-key quotas.
    package var writerSigningKey: String
    /// For an anonymous writer's note, where it came from (``NoteSource``), for the per-source quota and the
    /// anonymous notes' share of the server's; nil for a registered client's.
    package var source: String? = nil
}

/// Where an anonymous note came from, as its quotas count it: an IPv4 address whole, an IPv6 address by its /64
/// (one host usually holds a whole /64, so counting single IPv6 addresses would count nothing).
package enum NoteSource {
    /// The quota key of `address` (an IP address without port, as the request context holds it).
    package static func key(for address: String) -> String {
        guard address.contains(":") else { return address }
        // Expand `::` to zero groups, then keep the first four.
        let halves = address.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        let head = halves.first.map { $0.split(separator: ":").map(String.init) } ?? []
        let tail = halves.count > 1 ? halves[1].split(separator: ":").map(String.init) : []
        let zeros = Array(repeating: "0", count: max(0, 8 - head.count - tail.count))
        let groups = (head + (halves.count > 1 ? zeros : []) + tail).prefix(4)
        return groups.map { String(Int($0, radix: 16) ?? 0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}

/// How a note is looked up: by its `note_id` or by its `id_string` name.
package enum NoteLookup: Sendable, Hashable {
    /// By `note_id` (lowercase UUID).
    case id(String)
    /// By `id_string`.
    case name(String)
}

/// The bounds on live notes.
package struct NoteQuota: Sendable, Hashable {
    /// Live notes one writer key may have.
    package var perKey: Int
    /// Live notes on the server.
    package var total: Int
    /// Bytes of live notes one writer key may have.
    package var bytesPerKey: Int64
    /// Bytes of live notes on the server.
    package var bytesTotal: Int64
    /// The largest note, in bytes of its stored JSON.
    package var bytesPerNote: Int
    /// Live anonymous notes from one source (``NoteSource``). Anonymous notes together also take at most half of
    /// ``total`` and of ``bytesTotal``, so the other half always stays for registered clients' notes.
    package var perSource: Int

    /// Describes a quota.
    package init(
        perKey: Int,
        total: Int,
        bytesPerKey: Int64 = .max,
        bytesTotal: Int64 = .max,
        bytesPerNote: Int = .max,
        perSource: Int = .max
    ) {
        self.perSource = perSource
        self.perKey = perKey
        self.total = total
        self.bytesPerKey = bytesPerKey
        self.bytesTotal = bytesTotal
        self.bytesPerNote = bytesPerNote
    }
}

/// What storing a note did.
package enum NoteInsertion: Sendable, Hashable {
    /// It was stored.
    case inserted
    /// Its `id_string` is taken.
    case nameTaken
    /// The writer's key, or the server, has as many live notes (or bytes of them) as the quota allows.
    case quotaExceeded
    /// The note alone is larger than ``NoteQuota/bytesPerNote``; nothing was stored.
    case tooLarge
}
