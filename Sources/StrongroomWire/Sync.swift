// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v2/sync/revs_diff` body: which of these revision tags does no record of `type` readable by the caller
/// carry?
public struct SyncRevsDiffRequest: Codable, Sendable, Hashable {
    /// The record type (a replicated datastore's opaque type).
    public var type: String
    /// Blind revision tags (`sr.r` of the records' plain meta), at most 1,000.
    public var tags: [String]

    /// Creates a request.
    public init(type: String, tags: [String]) {
        self.type = type
        self.tags = tags
    }
}

/// `POST /v2/sync/revs_diff` answer.
public struct SyncRevsDiffResponse: Codable, Sendable, Hashable {
    /// The tags of the request no readable record carries, in the request's order, without repeats.
    public var missing: [String]

    /// Creates an answer.
    public init(missing: [String]) { self.missing = missing }
}

/// `POST /v2/sync/bulk` body: revision records to store, each at most once per writer, type and tag.
public struct SyncBulkRequest: Codable, Sendable, Hashable {
    /// The records, as `POST /v1/storage/records` takes them, each with its blind tag in `plain["sr.r"]`; at most
    /// 500.
    public var records: [RecordWriteRequest]

    /// Creates a request.
    public init(records: [RecordWriteRequest]) { self.records = records }
}

/// `POST /v2/sync/bulk` answer: one entry per record of the request, in its order.
public struct SyncBulkResponse: Codable, Sendable, Hashable {
    /// What became of one record.
    public struct Outcome: Codable, Sendable, Hashable {
        /// The record's blind tag.
        public var tag: String
        /// The stored record's ID (the earlier one's when it was stored before).
        public var recordID: String
        /// Whether this request stored it (false: a record with that tag was there already).
        public var created: Bool

        enum CodingKeys: String, CodingKey {
            case tag
            case recordID = "record_id"
            case created
        }

        /// Creates an outcome.
        public init(tag: String, recordID: String, created: Bool) {
            self.tag = tag
            self.recordID = recordID
            self.created = created
        }
    }

    /// One outcome per record of the request.
    public var records: [Outcome]

    /// Creates an answer.
    public init(records: [Outcome]) { self.records = records }
}

/// `POST /v2/sync/purge` body: delete the caller's revision records of `type` that carry these tags (a replica's
/// compaction of revisions far below every leaf; the leaves keep their ancestry).
public struct SyncPurgeRequest: Codable, Sendable, Hashable {
    /// The record type (a replicated datastore's opaque type).
    public var type: String
    /// Blind revision tags, at most 1,000.
    public var tags: [String]

    /// Creates a request.
    public init(type: String, tags: [String]) {
        self.type = type
        self.tags = tags
    }
}

/// `POST /v2/sync/purge` answer.
public struct SyncPurgeResponse: Codable, Sendable, Hashable {
    /// How many records were deleted (0 for tags already gone, or another writer's).
    public var removed: Int

    /// Creates an answer.
    public init(removed: Int) { self.removed = removed }
}

/// `POST /v2/sync/changes` body: a long-poll for records of `type` readable by the caller after `afterIndex`.
public struct SyncChangesRequest: Codable, Sendable, Hashable {
    /// The record type (a replicated datastore's opaque type).
    public var type: String
    /// The index the caller has read up to (its pull checkpoint).
    public var afterIndex: Int64
    /// Seconds to wait for a record when there is none yet (the server caps it; 0 answers at once).
    public var wait: Int

    enum CodingKeys: String, CodingKey {
        case type
        case afterIndex = "after_index"
        case wait
    }

    /// Creates a request.
    public init(type: String, afterIndex: Int64, wait: Int) {
        (self.type, self.afterIndex, self.wait) = (type, afterIndex, wait)
    }
}

/// `POST /v2/sync/changes` answer.
public struct SyncChangesResponse: Codable, Sendable, Hashable {
    /// The index of the first such record after the request's (a replica's checkpoint records do not count), or the
    /// request's own `after_index` when none came within the wait.
    public var lastIndex: Int64

    enum CodingKeys: String, CodingKey { case lastIndex = "last_index" }

    /// Creates an answer.
    public init(lastIndex: Int64) { self.lastIndex = lastIndex }
}

/// The record types of replicated datastores and their channels.
public enum ReplicatedType {
    /// Every replicated datastore's (and channel's) opaque record type starts with it; only such a type can have an
    /// owner (`POST /v2/sync/access`), so the server checks write access for these types alone.
    public static let prefix = "sr1."

    /// Whether `type` is a replicated datastore's (or channel's) type.
    public static func isReplicated(_ type: String) -> Bool { type.hasPrefix(prefix) }

    /// The plain-meta keys of a replicated type's records, the only plaintext they carry; both the server and the
    /// replicator read them from here.
    public enum PlainKey {
        /// The record format version.
        public static let version = "sr.v"
        /// A revision record's document tag.
        public static let documentTag = "sr.d"
        /// A revision record's tag.
        public static let revisionTag = "sr.r"
        /// A replica's checkpoint record (instead of the tags): a random ID of that record.
        public static let checkpoint = "sr.c"
        /// An attachment body's file record (instead of the tags): its content address.
        public static let attachment = "sr.a"
        /// A membership change written by the owner (instead of the tags): a random ID.
        public static let membership = "sr.m"
        /// A purge marker (instead of the tags): the purged document's tag.
        public static let purge = "sr.p"
        /// The records written through v1 rather than the bulk write: checkpoints, membership changes and purge
        /// markers.
        public static let bookkeeping = [checkpoint, membership, purge]
    }
}

/// `POST /v2/sync/access` body: the owner of a replicated datastore's type says what a member may write to it, so
/// that the server refuses a revoked or read-only member's writes of the type at once (replicas refuse them too).
public struct SyncAccessRequest: Codable, Sendable, Hashable {
    /// The record type (a replicated datastore's opaque type).
    public var type: String
    /// The member's client ID.
    public var member: String
    /// What the member may do from now on.
    public var access: SyncAccess

    /// Creates a request.
    public init(type: String, member: String, access: SyncAccess) {
        self.type = type
        self.member = member
        self.access = access
    }
}

/// What a member of a shared datastore may do, as `POST /v2/sync/access` sets it (on the wire `read`, `readWrite`
/// or `none`): the one spelling the client, the server and its store share.
public enum SyncAccess: String, Codable, Sendable, Hashable, CaseIterable {
    /// Pull; write only its own checkpoint records.
    case read
    /// Pull and push revisions of its own.
    case readWrite
    /// Revoked: nothing.
    case revoked = "none"
}

public struct SyncAccessResponse: Codable, Sendable, Hashable {
    /// The access now set.
    public var access: SyncAccess

    /// Creates an answer.
    public init(access: SyncAccess) { self.access = access }
}
