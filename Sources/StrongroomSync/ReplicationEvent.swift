// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Which way a replication runs.
public enum ReplicationDirection: Sendable, Hashable {
    /// Local revisions the server lacks go up.
    case push
    /// Revisions on the server the datastore lacks come down.
    case pull
    /// Push, then pull.
    case both
}

/// What one replication did.
public struct ReplicationReport: Sendable, Hashable {
    /// Revision records this replication stored on the server.
    public var revisionsPushed = 0
    /// Revision records read from the server.
    public var revisionsPulled = 0
    /// Of those, the revisions the datastore did not have yet.
    public var revisionsApplied = 0
    /// Documents whose revisions this replication stored on the server.
    public var documentsPushed = 0
    /// Documents that received a revision they did not have yet.
    public var documentsPulled = 0
    /// Documents that were not conflicted and are now, because a pulled revision made a second live leaf (they are
    /// in the datastore's `conflictedDocumentIDs()`; nothing is dropped).
    public var conflictsCreated = 0
    /// Records of the datastore's type the pull did not apply because their writer had no write access when they
    /// were written (a client that was never a member, a read-only member, one whose access was revoked before), or
    /// because another member's record does not verify (malformed, or altered on the way).
    public var revisionsRefused = 0
    /// Revisions removed from the datastore by purge markers pulled (another replica purged their documents).
    public var revisionsPurged = 0
    /// Revisions this replica had pushed and the server had acknowledged (in an earlier sync) that the server no
    /// longer held: dropped after the acknowledgement. They were pushed again. A revision another replica purged or
    /// compacted meanwhile is not counted (with ``ReplicationDirection/both``, which pulls those changes first).
    public var revisionsLostByServer = 0
    /// Bytes of revision bodies sent (before encryption).
    public var bytesPushed = 0
    /// Bytes of revision bodies received (after decryption).
    public var bytesPulled = 0
    /// How long the replication took.
    public var duration: Duration = .zero
    /// Whether the server had lost this replica's checkpoint record or held an older one (restored from an older
    /// backup, say), so both directions started over from the beginning — cheap, as only what is missing moves.
    public var restartedFromZero = false

    public init() {}
}

/// A step of a replication, as ``Replicator/replicate(_:progress:)`` reports it and
/// ``Replicator/events(_:continuous:)`` yields it (CDTDatastore's replicator delegate).
public enum ReplicationEvent: Sendable, Hashable {
    /// A batch of revisions was stored on the server; the report so far.
    case pushed(ReplicationReport)
    /// A page of revisions was applied, with its checkpoint, in one transaction; the report so far.
    case pulled(ReplicationReport)
    /// The replication finished: nothing it read is left to send or apply. The final report.
    case completed(ReplicationReport)
    /// Live replication only: the last pass completed and nothing is left to do; waiting for a change here or on the
    /// server. The last pass's report.
    case idle(ReplicationReport)
    /// Live replication only: a pass failed because the server could not be reached (or answered with its own
    /// error); the next try comes after `retryIn`, backing off with jitter up to 30 s.
    case offline(reason: String, retryIn: Duration)
}
