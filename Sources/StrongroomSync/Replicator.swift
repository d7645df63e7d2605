// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomClient
import StrongroomCore
public import StrongroomDatastore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Replicates a datastore through the Strongroom server with CouchDB's algorithm, end to end encrypted
/// (`docs/design/Replication.md`): push sends every leaf revision the server lacks (asked with blind tags), pull
/// applies every revision record the datastore lacks with `forceInsert`, each after checking the record against its
/// tags. Checkpoints live in the datastore, so an interrupted replication resumes where it stopped, and a repeated
/// one sends and applies nothing.
///
/// The work is split by job: ``replicate(_:progress:)`` here runs a `ReplicationSession` (push and pull, in
/// `ReplicationSession+Push.swift` and `+Pull.swift`, attachments in `+Attachments.swift`); members and sharing are in
/// `Replicator+Members.swift`, live replication in `+Continuous.swift`, purge, compaction and discard in
/// `+Maintenance.swift`, the datastore's home in `+Home.swift`.
public struct Replicator: Sendable {
    let datastore: Datastore
    let client: Client
    let name: String
    /// A member's replicator: the owner's datastore it replicates.
    let shared: SharedDatastore?
    let keepsCopyOnAccessLoss: Bool
    let channel: ReplicationChannel?
    let filter: SelectorFilter?

    /// A replicator of `datastore`, known to the server under the name `name` (the same name on every device of
    /// this client, its owner).
    ///
    /// - Parameters:
    ///   - datastore: the local datastore.
    ///   - name: the datastore's name on the server (never sent: the record type is derived from it).
    ///   - client: this client, the datastore's owner.
    ///   - channel: replicate only one channel of the datastore: the documents its selector matches, as a record
    ///     type, and so an access key, of their own — what ``share(with:access:)`` then shares is that channel alone.
    ///   - filter: push only documents whose winning revision matches, apply only pulled revisions that match
    ///     (CDTDatastore's filtered replication: a convenience, not a boundary — channels are the boundary).
    public init(
        datastore: Datastore,
        name: String,
        client: Client,
        channel: ReplicationChannel? = nil,
        filter: SelectorFilter? = nil
    ) {
        self.datastore = datastore
        self.name = channel.map { name + "\u{0}channel\u{0}" + $0.name } ?? name
        self.client = client
        (shared, keepsCopyOnAccessLoss) = (nil, false)
        (self.channel, self.filter) = (channel, filter)
    }

    /// A member's replicator: `datastore` replicates the datastore another client shares with this one
    /// (``share(with:access:)`` on the owner's side, which hands out `shared`).
    ///
    /// - Parameters:
    ///   - datastore: this client's local copy.
    ///   - shared: the owner's datastore, as the owner's ``sharedDatastore()`` gave it.
    ///   - client: this client (a member).
    ///   - keepsCopyOnAccessLoss: when the owner revokes this client, keep the local documents (read only from then
    ///     on) instead of purging them — CouchDB/Couchbase's "auto-purge on access loss" is the default.
    ///   - filter: push only documents whose winning revision matches, apply only pulled revisions that match.
    public init(
        datastore: Datastore,
        sharedDatastore shared: SharedDatastore,
        client: Client,
        keepsCopyOnAccessLoss: Bool = false,
        filter: SelectorFilter? = nil
    ) {
        self.datastore = datastore
        self.name = shared.type
        self.client = client
        (self.shared, self.keepsCopyOnAccessLoss) = (shared, keepsCopyOnAccessLoss)
        (channel, self.filter) = (nil, filter)
    }

    /// Runs one replication in `direction`.
    ///
    /// - Parameters:
    ///   - direction: push, pull, or both (push first).
    ///   - progress: called after each batch pushed and each page applied, then once with
    ///     ``ReplicationEvent/completed(_:)``.
    /// - Throws: ``SyncError/Code/tampered`` for a record that does not verify (its tags, its writer, its signature
    ///   or its ciphertext) and ``SyncError`` for other bad records — nothing of that page is applied; `ClientError`
    ///   from the server, `DatastoreError` from the datastore. Cancellation stops between pages: every page is
    ///   applied in one transaction with its checkpoint, so nothing is half-applied and the checkpoint never runs
    ///   ahead of what was applied.
    @discardableResult
    public func replicate(
        _ direction: ReplicationDirection = .both,
        progress: @Sendable (ReplicationEvent) -> Void = { _ in }
    ) async throws -> ReplicationReport {
        let started = ContinuousClock.now
        let session = try await self.session(started: started)
        var report = ReplicationReport()
        let remote = RemoteCheckpoint(session: session)
        let stored = try await remote.check()
        if stored.rolledBack {
            report.restartedFromZero = true
            try await remote.restart()
        }
        var pending = 0
        // Revisions the server acknowledged in an earlier sync and no longer holds (pushed again meanwhile).
        var lost: [(docID: String, revID: String)] = []
        if session.names.isOwner {
            if direction != .pull {
                // A revoke stopped after its membership record: its rotation is finished before anything is pushed.
                try await session.rotateForRevocations(try await session.membership())
                try await session.push(&report, progress, lost: &lost)
            }
            if direction != .push { try await session.pull(&report, progress) }
        } else {
            // A member learns its access (and the other members) from the owner's records first.
            try await session.pull(&report, progress)
            if direction != .pull {
                let state = try await session.membership()
                if state.access(of: session.clientID) == .readWrite {
                    // Its key no longer opens for a member revoked meanwhile before it pushes under it.
                    try await session.rotateForRevocations(state)
                    try await session.shareBack(state)
                    try await session.push(&report, progress, lost: &lost)
                } else {
                    pending = try await session.push(&report, progress, sending: false, lost: &lost)
                }
            }
        }
        if !lost.isEmpty { report.revisionsLostByServer = try await session.stillLeaves(lost) }
        try await remote.advance(from: stored.record)
        if pending > 0 {
            throw SyncError(
                .readOnly,
                "\(pending) local revisions were not pushed: this client may only read the shared datastore"
            )
        }
        report.duration = ContinuousClock.now - started
        progress(.completed(report))
        return report
    }

    /// The events of one replication in `direction`, ending after ``ReplicationEvent/completed(_:)`` or with its
    /// error. The replication starts at once; it is cancelled when the sequence is dropped or the task iterating it
    /// is cancelled.
    ///
    /// - Parameters:
    ///   - direction: push, pull, or both (push first).
    ///   - continuous: keep replicating until the sequence is dropped (``replicateContinuously(_:progress:)``).
    public func events(
        _ direction: ReplicationDirection = .both,
        continuous: Bool = false
    ) -> AsyncThrowingStream<ReplicationEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ReplicationEvent.self)
        let task = Task {
            do {
                if continuous {
                    try await replicateContinuously(direction) { continuation.yield($0) }
                } else {
                    try await replicate(direction) { continuation.yield($0) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
