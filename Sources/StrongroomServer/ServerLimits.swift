// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Every bound the server enforces on what callers send and what it keeps for them. The defaults are the
/// documented ones (`docs/THREAT_MODEL.md`); `strongroom-server serve` exposes the ones an operator is likely
/// to change.
public struct ServerLimits: Sendable, Hashable {
    /// v2 search: `next_token + limit` may not exceed this (Elasticsearch's `max_result_window`).
    public var searchWindow: Int = 10_000
    /// v2 search: the work one search may do (roughly the bytes of metadata it compares), before a 400.
    public var searchWorkUnits: Int = 256 << 20
    /// v1 and v2 search: the ciphertext bytes one response carries at most; a page that would exceed it ends
    /// early (at least one record is always returned) and the caller pages on.
    public var searchResponseDataBytes: Int = 32 << 20
    /// Records and files: the JSON size of `meta.plain`, in bytes.
    public var maximumPlainBytes: Int = 64 << 10
    /// Record types, file names and every other name, in UTF-8 bytes (not characters).
    public var maximumNameBytes: Int = 1024
    /// The largest file a client may declare, in bytes (default 5 GiB, S3's single-PUT limit).
    public var maximumFileSize: Int64 = 5 << 30
    /// How long a file record may stay pending (uploaded but not committed) before it and its blob are deleted.
    public var pendingFileLifetime: Duration = .seconds(24 * 3600)
    /// How long a presigned upload or download URL is valid.
    public var presignedURLLifetime: Duration = .seconds(60)
    /// The longest a note lives: notes without an expiry expire after this long, and a later `expiration` is
    /// brought forward to it (so no note holds a quota for good).
    public var defaultNoteLifetime: Duration = .seconds(30 * 24 * 3600)
    /// The largest note, in bytes of its stored JSON.
    public var maximumNoteBytes: Int = 1 << 20
    /// Bytes of live notes one signing key may have written.
    public var noteBytesPerKey: Int64 = 16 << 20
    /// Bytes of live notes on the whole server.
    public var noteBytesTotal: Int64 = 1 << 30
    /// Live notes one signing key may have written.
    public var notesPerKey: Int = 100
    /// Live notes on the whole server. Anonymous writers' notes together take at most half of it (and half of
    /// ``noteBytesTotal``), so strangers can never fill the room registered clients' notes need.
    public var notesTotal: Int = 100_000
    /// Live notes of anonymous writers from one source address (an IPv4 address, an IPv6 /64), whatever keys they
    /// sign with: fresh keys cost nothing, addresses do.
    public var notesPerSource: Int = 1_000
    /// `max_views` of a note: -1 (unlimited) or 1 to this.
    public var maximumNoteViews: Int64 = 1_000_000
    /// Sharing listings (`policy/incoming`, `outgoing`, `proxies`, `granted`): entries per page at most.
    public var listingPageSize: Int = 1000
    /// Failed registrations, token requests and credential-backup acknowledgements a source address may make in
    /// one minute before it is answered 429.
    public var authenticationFailuresPerMinute: Int = 30
    /// Client certificates one client may be issued (enrollment and renewal) in 24 hours before it is answered 429;
    /// operators' `ca issue` is not counted against it.
    public var certificatesPerClientPerDay: Int = 24
    /// Integrity check-in: app instances one client may register (more is 429).
    public var integrityInstancesPerClient: Int = 64
    /// Integrity check-in: challenges one client may hold at once (an older one is dropped for a new one).
    public var integrityChallengesPerClient: Int = 16
    /// Integrity check-in: reports kept per client (the oldest go first).
    public var integrityReportsPerClient: Int = 200
    /// Integrity check-in: the largest report, in bytes of JSON.
    public var maximumIntegrityReportBytes: Int = 64 << 10
    /// Replication: the largest revision record's encrypted data, in bytes (its body is at most 1 MiB before
    /// encryption); a larger one in a bulk write is 413.
    public var maximumRevisionRecordBytes: Int = 2 << 20
    /// Replication: records one writer may keep of one replicated type (one datastore or channel) — revisions,
    /// checkpoints, membership changes, purge markers and attachment bodies alike — so no member can make the others'
    /// pulls unbounded; a write past it is 413.
    public var syncRecordsPerWriterAndType: Int = 1_000_000
    /// Replication: revision records one writer may keep of one document of a replicated type (its edits, conflicts
    /// and tombstones), so no member can make one document's history unbounded for the others; a bulk write past it
    /// is 413.
    public var syncRevisionsPerDocument: Int = 10_000
    /// Replication: members (revoked ones included) of one shared datastore's type; setting one more is 413.
    public var syncMembersPerType: Int = 10_000
    /// Readers a key rotation re-seals the type's access key to (`POST /v2/storage/access_keys/…/rotate`), and that
    /// `GET /v2/storage/access_keys/{writer}/{user}/{type}` lists; a type with more cannot be rotated in one step.
    public var readersPerRotation: Int = 10_000
    /// Links between access-key generations that answer lists, newest first: a client resuming an interrupted
    /// rotation walks back at most this many generations.
    public var keyLinksServed: Int = 64
    /// Records one bulk re-wrap (`POST …/{type}/rewrap`) takes.
    public var recordsPerRewrap: Int = 1_000
    /// Replication: shared datastores' types one client owns; claiming one more is 413.
    public var syncOwnedTypesPerClient: Int = 100_000
    /// Replication: revision tags one `POST /v2/sync/revs_diff` or `…/purge` asks about (more is 400).
    public var syncTagsPerRequest: Int = 1_000
    /// Replication: records one `POST /v2/sync/bulk` stores (more is 400; the body is also bounded, at 16 MiB).
    public var syncRecordsPerBulk: Int = 500
    /// Replication: the largest attachment body of a replicated type, in bytes (default 4 GiB, the datastore's own
    /// limit: a replica could not take a larger one); a larger file record of such a type is 413.
    public var maximumAttachmentBytes: Int64 = 4 << 30
    /// Replication: the attachment bytes of one replicated type (one datastore or channel), every writer's together,
    /// so no member can make the others' pulls unbounded in bytes; an upload past it is 413.
    public var syncAttachmentBytesPerType: Int64 = 64 << 30
    /// Live replication: the longest a `POST /v2/sync/changes` long-poll waits for a record (0 answers at once).
    public var maximumSyncWait: Duration = .seconds(25)
    /// Live replication: long-polls one client may hold open at once (more is 429).
    public var syncWaitsPerClient: Int = 8
    /// Live replication: long-polls the server holds open at once, every client's together (more is 429); nil is a
    /// quarter of ``ConnectionLimits/maximumConnections``, so waiting requests never hold the slots `/health`,
    /// tokens and ordinary requests need.
    public var syncWaitsTotal: Int?

    /// The defaults.
    public init() {}
}
