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

    /// Describes a quota.
    package init(
        perKey: Int,
        total: Int,
        bytesPerKey: Int64 = .max,
        bytesTotal: Int64 = .max,
        bytesPerNote: Int = .max
    ) {
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
