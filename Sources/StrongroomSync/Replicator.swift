// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomClient
import StrongroomCore
import StrongroomCrypto
public import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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

/// Replicates a datastore through the Strongroom server with CouchDB's algorithm, end to end encrypted
/// (`docs/design/Replication.md`): push sends every leaf revision the server lacks (asked with blind tags), pull
/// applies every revision record the datastore lacks with `forceInsert`, each after checking the record against its
/// tags. Checkpoints live in the datastore, so an interrupted replication resumes where it stopped, and a repeated
/// one sends and applies nothing.
///
/// This slice replicates one client's datastore between its devices: revisions written by another client are refused.
public struct Replicator: Sendable {
    /// Changes read from the datastore per push round: one revs_diff and one bulk write (at most 500 records).
    static let pushPageSize = 500
    /// Records read from the server per pull round (the most v1 search returns), applied in one transaction.
    static let pullPageSize = 1_000
    /// The most request bytes of revision bodies one bulk write carries (the server takes 16 MiB).
    static let batchBytes = 8 << 20

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
        if session.isOwner {
            if direction != .pull { try await session.push(&report, progress) }
            if direction != .push { try await session.pull(&report, progress) }
        } else {
            // A member learns its access (and the other members) from the owner's records first.
            try await session.pull(&report, progress)
            if direction != .pull {
                let state = try await session.membership()
                if state.access[session.clientID] == .readWrite {
                    try await session.shareBack(state)
                    try await session.push(&report, progress)
                } else {
                    pending = try await session.push(&report, progress, sending: false)
                }
            }
        }
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

    /// Asks the server to forget this replica's revision records that lie at least `revsLimit` generations below
    /// every leaf of their document (CouchDB's `revs_limit`): the leaves keep their ancestry, so every replica still
    /// merges as before; only the bodies of those old revisions are gone from the server (each replica keeps its
    /// own until its local `Datastore.compact()`). Run it after a replication, on one device.
    ///
    /// - Parameter revsLimit: how many generations below the shallowest leaf to keep (at least 1).
    /// - Returns: how many records the server deleted.
    @discardableResult
    public func compact(revsLimit: Int = 100) async throws -> Int {
        guard revsLimit >= 1 else { throw SyncError(.invalidRecord, "revsLimit keeps at least one generation") }
        let session = try await session(started: .now)
        var (after, removed) = (Int64(0), 0)
        while true {
            try Task.checkCancellation()
            let page = try await datastore.compactableRevisions(depth: revsLimit, after: after, limit: 1_000)
            guard !page.revisions.isEmpty else { return removed }
            removed += try await client.removeRevisions(
                type: session.type,
                tags: page.revisions.map { session.tags.revisionTag(docID: $0.docID, revID: $0.revID) }
            )
            after = page.last
        }
    }

    /// Purges the documents `docIDs` on every replica: each is removed from this datastore entirely (as
    /// `Datastore.purge(_:)` does), its revision records are deleted from the server, and a signed purge marker
    /// (``PurgeRecord``) tells every other replica, on its next pull, to remove the revisions this one held. A
    /// revision another replica writes before it hears of the purge survives there (and comes back here with its
    /// ancestry, as any concurrent edit would); a purged revision a replica sends again is not taken back.
    ///
    /// The marker is written first, so an interrupted purge finishes on this replica's next pull.
    ///
    /// - Returns: how many revisions were removed from this datastore.
    @discardableResult
    public func purge(_ docIDs: [String]) async throws -> Int {
        let session = try await session(started: .now)
        var removed = 0
        for docID in docIDs {
            try Task.checkCancellation()
            let revisions = try await datastore.revisionIDs(of: docID)
            guard !revisions.isEmpty else { continue }
            for chunk in revisions.chunked(into: ReplicationLimits.maximumPurgedRevisions) {
                let marker = try PurgeRecord(docID: docID, revIDs: Array(chunk))
                _ = try await SyncError.overCaps("a purge marker") {
                    try await client.write(
                        type: session.type,
                        data: marker.fields,
                        plain: marker.plain(tags: session.tags)
                    )
                }
            }
            try await session.removeFromServer(revisions.map { (docID, $0) })
            removed += try await datastore.purge(docID: docID, revisions: Set(revisions), remember: true).count
        }
        return removed
    }

    /// Removes every local revision the server does not hold — a read-only member's edits, which a push refuses
    /// with ``SyncError/Code/readOnly`` — so that this replica holds what the shared datastore holds again: a
    /// document only this replica created goes, an edit made here is dropped and the document's winner is the
    /// shared one again. Revisions the server holds stay, and so do documents this replicator's filter or channel
    /// does not carry (they were never meant for the server). Run it after a pull, so that everything the server has
    /// is here and only local edits are left to drop.
    ///
    /// - Returns: how many revisions were removed.
    @discardableResult
    public func discardUnpushedRevisions() async throws -> Int {
        let session = try await session(started: .now)
        var (since, removed) = (Int64(0), 0)
        while true {
            try Task.checkCancellation()
            let page = try await datastore.changes(since: since, limit: Self.pushPageSize)
            guard !page.changes.isEmpty else { return removed }
            // The leaves first, in one question per page; only a document with an unheld leaf has anything to drop.
            // A document this replication's filter or channel does not carry was never meant for the server: its
            // revisions are not unpushed edits, and stay.
            let selected = try await session.selected(page.changes)
            let leaves = page.changes.filter { selected?.contains($0.docID) ?? true }.flatMap { change in
                change.leafRevIDs.map { (change.docID, $0) }
            }
            var seen = Set<String>()
            for docID in try await session.unheld(leaves).map(\.docID) where seen.insert(docID).inserted {
                let revisions = try await datastore.revisionIDs(of: docID).map { (docID, $0) }
                let dropped = Set(try await session.unheld(revisions).map(\.revID))
                // Only the unheld revisions go; a held one whose children all went is a leaf again.
                removed += try await datastore.purge(
                    docID: docID,
                    revisions: dropped,
                    remember: false,
                    onlyListed: true
                )
                .count
            }
            since = page.lastSequence
        }
    }

    /// The datastore's type on the server, its tag key (from the type's access key, made on first use) and its
    /// checkpoint names, for a replication or a compaction starting at `started`.
    private func session(started: ContinuousClock.Instant) async throws -> Session {
        try await requireHome()
        let configuration = client.configuration
        let clientID = configuration.clientID.uuidString.lowercased()
        let type = try recordType()
        let key: AccessKey
        if let shared {
            key = try await sharedKey(shared)
        } else {
            key = try await client.replicationAccessKey(type: type)
        }
        let tags = try RevisionTagKey(accessKey: key)
        return Session(
            datastore: datastore,
            client: client,
            type: type,
            tags: tags,
            clientID: clientID,
            owner: shared?.ownerID.uuidString.lowercased() ?? clientID,
            checkpointID: Self.checkpointID(clientID: clientID, url: configuration.apiURL, type: type, filter: filter),
            started: started,
            pushSelection: [channel?.selector, filter].compactMap { $0 },
            channelSelector: channel?.selector,
            pullFilter: filter
        )
    }

    /// The datastore's (or channel's) record type: the owner derives it from the name, a member was given it.
    private func recordType() throws -> String {
        if let shared { return shared.type }
        let configuration = client.configuration
        return try ReplicationTypeKey(
            privateKey: configuration.keys.encryptionKey,
            clientID: configuration.clientID.uuidString.lowercased()
        ).recordType(forDatastoreNamed: name)
    }

    /// The owner's key for a shared datastore, fetched afresh; when the owner no longer shares it, the local copy
    /// is purged (unless kept) and ``SyncError/Code/accessRevoked`` thrown.
    private func sharedKey(_ shared: SharedDatastore) async throws -> AccessKey {
        let outcome: Result<AccessKey, ClientError>
        do {
            outcome = .success(try await client.sharedAccessKey(type: shared.type, ownerID: shared.ownerID))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let key): return key
        case .failure(let error) where error.code == .notFound || error.code == .forbidden:
            var purged = 0
            if !keepsCopyOnAccessLoss {
                var since: Int64 = 0
                while true {
                    let page = try await datastore.changes(since: since, limit: 1_000)
                    guard !page.changes.isEmpty else { break }
                    for change in page.changes { purged += try await datastore.purge(change.docID) }
                    since = page.lastSequence
                }
            }
            throw SyncError(
                .accessRevoked,
                "the owner no longer shares this datastore with this client"
                    + (keepsCopyOnAccessLoss ? "; the local copy is kept" : "; \(purged) local revisions purged"),
                underlying: error
            )
        case .failure(let error): throw error
        }
    }

    // MARK: Members (the owner's side)

    /// Where this (owned) datastore lives on the server, for members to replicate it
    /// (``init(datastore:sharedDatastore:client:keepsCopyOnAccessLoss:filter:)``).
    public func sharedDatastore() async throws -> SharedDatastore {
        let session = try await ownerSession()
        return SharedDatastore(ownerID: client.configuration.clientID, type: session.type)
    }

    /// Shares this datastore with another client: it gets the datastore's key (an E3DB share of its type) and, by
    /// a membership record every replica folds, `access`. Call it again to change the access. The new member also
    /// gets the records of every read-write member that has synced since joining (they made this client their
    /// authorizer), so it sees every revision from the start.
    ///
    /// - Throws: ``SyncError/Code/notOwner`` on a member's replicator; `ClientError.notFound` for an unknown client.
    public func share(with memberID: UUID, access: MemberAccess) async throws {
        let session = try await ownerSession()
        // The access first: it makes this client the type's owner on the server before the member can see the type
        // (the E3DB share next), so no member can claim it first.
        try await client.setSyncAccess(type: session.type, member: memberID, access: access.rawValue)
        try await client.share(type: session.type, readerID: memberID)
        let state = try await session.membership()
        for writer in state.writers where writer != memberID {
            try await Self.ignoringMissingGrant { () throws(ClientError) in
                try await client.share(onBehalfOf: writer, type: session.type, readerID: memberID)
            }
        }
        try await session.writeMembership(MembershipRecord(member: memberID, access: access))
    }

    /// Stops sharing this datastore with `memberID`: the server refuses its reads of the owner's records and its
    /// writes of the datastore at once, and every replica refuses the revisions it writes from now on (those written
    /// before stay). On its next sync the member learns it has lost access and purges its copy (unless it keeps one).
    ///
    /// - Throws: ``SyncError/Code/notOwner`` on a member's replicator.
    public func revoke(_ memberID: UUID) async throws {
        let session = try await ownerSession()
        try await client.setSyncAccess(type: session.type, member: memberID, access: "none")
        try await session.writeMembership(MembershipRecord(member: memberID, access: nil))
        try await client.revoke(type: session.type, readerID: memberID)
        let state = try await session.membership()
        for writer in state.writers where writer != memberID {
            try await Self.ignoringMissingGrant { () throws(ClientError) in
                try await client.revoke(onBehalfOf: writer, type: session.type, readerID: memberID)
            }
        }
    }

    /// The datastore's members as this replica last pulled them (the owner is not listed).
    public func members() async throws -> [Member] {
        let session = try await session(started: .now)
        return try await session.membership().members
    }

    private func ownerSession() async throws -> Session {
        guard shared == nil else { throw SyncError(.notOwner, "only the datastore's owner may change its members") }
        return try await session(started: .now)
    }

    /// Runs a share on a writer's behalf; a writer that has not made the owner its authorizer yet (it has not
    /// synced since it joined) is skipped: it shares its records itself on its next sync.
    private static func ignoringMissingGrant(_ body: () async throws(ClientError) -> Void) async throws {
        let outcome: Result<Void, ClientError>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        if case .failure(let error) = outcome, error.code != .notFound, error.code != .forbidden { throw error }
    }

    /// Replicates in `direction` until the task is cancelled (CouchDB's continuous replication): a pass at once, then
    /// another whenever the datastore changes through this process or the server has new records of the datastore
    /// (a bounded long-poll, `POST /v2/sync/changes`), reporting ``ReplicationEvent/idle(_:)`` between passes. When
    /// the server cannot be reached it reports ``ReplicationEvent/offline(reason:retryIn:)`` and tries again, backing
    /// off with jitter; any other failure ends it.
    ///
    /// - Throws: `CancellationError` when cancelled (every page already applied stays, with its checkpoint); the
    ///   first error that is not the server being away.
    public func replicateContinuously(
        _ direction: ReplicationDirection = .both,
        progress: @Sendable (ReplicationEvent) -> Void = { _ in }
    ) async throws {
        var backoff = Self.firstRetry
        while true {
            try Task.checkCancellation()
            let seen = datastore.changeGeneration
            let outcome: Result<ReplicationReport, any Error>
            do {
                outcome = .success(try await replicate(direction, progress: progress))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let report):
                backoff = Self.firstRetry
                progress(.idle(report))
                await waitForWork(direction, seenLocally: seen)
            case .failure where Task.isCancelled:
                throw CancellationError()
            case .failure(let error) where Self.isServerAway(error):
                let delay = backoff * Double.random(in: 0.5...1.0)
                progress(.offline(reason: String(describing: error), retryIn: delay))
                try await Task.sleep(for: delay)
                backoff = min(backoff * 2, Self.longestRetry)
            case .failure(let error):
                throw error
            }
        }
    }

    /// The replication's name in the datastore's checkpoints: client, server, type, and a filter's selector (as
    /// CouchDB's replication ID includes the filter, so a changed filter starts over).
    static func checkpointID(clientID: String, url: URL, type: String, filter: SelectorFilter?) -> String {
        let base = "\(clientID)@\(url.absoluteString)/\(type)"
        guard let filter else { return base }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = (try? encoder.encode(filter.selector)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return base + "?filter=" + text
    }

    static let firstRetry: Duration = .milliseconds(500)
    static let longestRetry: Duration = .seconds(30)
    /// How long one long-poll asks the server to wait.
    static let longPoll: Duration = .seconds(25)
    /// How often a live replicator looks for writes other processes made to the datastore.
    static let localPoll: Duration = .seconds(1)

    /// Whether `error` is the server being away (unreachable, timed out, or answering with its own failure).
    static func isServerAway(_ error: any Error) -> Bool {
        guard let error = error as? ClientError else { return false }
        return [.transport, .timedOut, .server].contains(error.code)
    }

    /// Returns when there is work: a local write through this process (unless only pulling) or a record on the
    /// server after the pull checkpoint (unless only pushing); also when the long-poll fails, so that the next pass
    /// reports why.
    private func waitForWork(_ direction: ReplicationDirection, seenLocally seen: UInt64) async {
        let (datastore, client) = (datastore, client)
        let configuration = client.configuration
        let clientID = configuration.clientID.uuidString.lowercased()
        let type = try? recordType()
        let checkpointID = type.map {
            Self.checkpointID(clientID: clientID, url: configuration.apiURL, type: $0, filter: filter)
        }
        let (pullKey, pushKey) = (checkpointID.map { "pull:" + $0 }, checkpointID.map { "push:" + $0 })
        await withTaskGroup(of: Void.self) { group in
            if direction != .push, let type, let pullKey {
                group.addTask {
                    while !Task.isCancelled {
                        let saved: String??
                        do { saved = .some(try await datastore.checkpoint(pullKey)) } catch { saved = .none }
                        guard let saved else { return }
                        let after = saved.flatMap { Int64($0) } ?? 0
                        guard
                            let index = try? await client.waitForRecords(
                                type: type,
                                afterIndex: after,
                                wait: Self.longPoll
                            )
                        else {
                            // Refused (429: this client holds too many) or away: never a tight loop.
                            try? await Task.sleep(for: Self.firstRetry)
                            return
                        }
                        if index > after { return }
                    }
                }
            }
            if direction != .pull, let pushKey {
                group.addTask {
                    // At once for writes through this process; within a second for writes by other processes (the
                    // changes feed has moved past the push checkpoint).
                    while !Task.isCancelled, datastore.changeGeneration == seen {
                        await datastore.waitForChange(after: seen, timeout: Self.localPoll)
                        let pushed =
                            (try? await datastore.checkpoint(pushKey)).flatMap { $0.flatMap { Int64($0) } } ?? 0
                        if let page = try? await datastore.changes(since: pushed, limit: 1), !page.changes.isEmpty {
                            return
                        }
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
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

/// One replication's fixed parts.
struct Session: Sendable {
    let datastore: Datastore
    let client: Client
    let type: String
    let tags: RevisionTagKey
    let clientID: String
    /// The datastore's owner (lowercase); this client for its own datastores.
    let owner: String
    let checkpointID: String
    let started: ContinuousClock.Instant
    /// What a pushed document's winning revision must match (a channel's selector, a filter).
    var pushSelection: [SelectorFilter] = []
    /// A channel's selector: what every live revision pushed into the channel must match itself (not only its
    /// document's winner), so that a conflicting revision of another channel never enters this one's key.
    var channelSelector: SelectorFilter?
    /// What a pulled revision must match to be applied.
    var pullFilter: SelectorFilter?

    var isOwner: Bool { owner == clientID }

    /// The datastore's checkpoint names: the changes-feed sequence pushed up to, the server index pulled up to, the
    /// members folded up to that index, the clients a member has shared its own records with.
    var pushKey: String { "push:" + checkpointID }
    var pullKey: String { "pull:" + checkpointID }
    var membersKey: String { "members:" + checkpointID }
    var sharedBackKey: String { "shared-back:" + checkpointID }

    /// The revisions of `revisions` whose records the server does not hold for this datastore.
    func unheld(_ revisions: [(docID: String, revID: String)]) async throws -> [(docID: String, revID: String)] {
        var missing = Set<String>()
        let tagged = revisions.map {
            (docID: $0.docID, revID: $0.revID, tag: tags.revisionTag(docID: $0.docID, revID: $0.revID))
        }
        for chunk in tagged.chunked(into: 1_000) {
            missing.formUnion(try await client.missingRevisionTags(type: type, tags: chunk.map(\.tag)))
        }
        return tagged.filter { missing.contains($0.tag) }.map { (docID: $0.docID, revID: $0.revID) }
    }

    /// The members as folded by the last pull.
    func membership() async throws -> MembershipState {
        MembershipState.decode(try await datastore.checkpoint(membersKey))
    }

    /// Writes a membership change (the owner's), then pulls so this replica folds it in the server's order.
    func writeMembership(_ change: MembershipRecord) async throws {
        _ = try await SyncError.overCaps("a membership change") {
            try await client.write(type: type, data: change.fields, plain: change.plain)
        }
        var report = ReplicationReport()
        try await pull(&report, { _ in })
    }

    /// A read-write member's records are readable by the owner and every member: it makes the owner its
    /// authorizer for the type (so the owner can share them with members who join later) and shares them with each
    /// member, and stops sharing them with those who left.
    func shareBack(_ state: MembershipState) async throws {
        var done = Set((try await datastore.checkpoint(sharedBackKey) ?? "").split(separator: " ").map(String.init))
        let wanted = Set(state.access.keys).union([owner]).subtracting([clientID])
        guard let ownerID = UUID(uuidString: owner) else { return }
        if !done.contains("authorizer") {
            try await client.add(authorizerID: ownerID, type: type)
            done.insert("authorizer")
        }
        for reader in wanted.subtracting(done) {
            guard let readerID = UUID(uuidString: reader) else { continue }
            try await client.share(type: type, readerID: readerID)
            done.insert(reader)
            try await datastore.setCheckpoint(sharedBackKey, done.sorted().joined(separator: " "))
        }
        for reader in done.subtracting(wanted).subtracting(["authorizer"]) {
            guard let readerID = UUID(uuidString: reader) else { continue }
            try await client.revoke(type: type, readerID: readerID)
            done.remove(reader)
        }
        try await datastore.setCheckpoint(sharedBackKey, done.sorted().joined(separator: " "))
    }

    /// Sends every local leaf revision the server lacks; with `sending` false (a read-only member), only counts
    /// them and returns how many there are.
    @discardableResult
    func push(
        _ report: inout ReplicationReport,
        _ progress: (ReplicationEvent) -> Void,
        sending: Bool = true
    ) async throws -> Int {
        let key = pushKey
        var documents = Set<String>()
        var since = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        var unsent = 0
        while true {
            try Task.checkCancellation()
            let page = try await datastore.changes(since: since, limit: Replicator.pushPageSize)
            guard !page.changes.isEmpty else { return unsent }
            let selected = try await selected(page.changes)
            let wanted = try await unheld(
                page.changes.filter { selected?.contains($0.docID) ?? true }.flatMap { change in
                    change.leafRevIDs.map { (docID: change.docID, revID: $0) }
                }
            )
            guard sending else {
                unsent += wanted.count
                since = page.lastSequence
                // Up to the first unsent revision the server has everything: no need to look there again.
                if unsent == 0 { try await datastore.setCheckpoint(key, String(since)) }
                continue
            }
            let revisions = try await datastore.outgoingRevisions(
                wanted,
                maximumAncestry: ReplicationLimits.maximumAncestry
            ).filter(belongsInChannel)
            var batch: [(write: Client.RevisionWrite, docID: String)] = []
            var batchBytes = 0
            for revision in revisions {
                var references: [String: AttachmentReference] = [:]
                for attachment in revision.attachments {
                    references[attachment.name] = try await uploaded(attachment, of: revision)
                }
                let record = try RevisionRecord(
                    docID: revision.docID,
                    revID: revision.revID,
                    ancestry: revision.ancestry,
                    isDeleted: revision.isDeleted,
                    body: revision.json,
                    attachments: AttachmentReference.encode(references)
                )
                let size = record.body.utf8.count + record.attachments.utf8.count + 64 * record.ancestry.count
                if !batch.isEmpty, batch.count == 500 || batchBytes + size > Replicator.batchBytes {
                    try await send(batch, bytes: batchBytes, &report, &documents, progress)
                    (batch, batchBytes) = ([], 0)
                }
                batch.append(
                    (Client.RevisionWrite(fields: record.fields, plain: record.plain(tags: tags)), record.docID)
                )
                batchBytes += size
            }
            if !batch.isEmpty { try await send(batch, bytes: batchBytes, &report, &documents, progress) }
            since = page.lastSequence
            try await datastore.setCheckpoint(key, String(since))
        }
    }

    /// Whether `revision` may enter this replication's channel: always without one; a tombstone whenever its
    /// document was chosen; a live revision when its own body matches the channel's selector.
    private func belongsInChannel(_ revision: OutgoingRevision) -> Bool {
        guard let channelSelector, !revision.isDeleted else { return true }
        guard let body = try? JSONDecoder().decode([String: JSONValue].self, from: Data(revision.json.utf8)) else {
            return false
        }
        return channelSelector.matches(body)
    }

    /// With a channel or a filter, the documents of `changes` this replication carries (nil: all): those whose
    /// winning revision matches, and deleted ones whose previous revision it carried (so a tombstone reaches the
    /// channel's members, and no other document's ID does).
    func selected(_ changes: [DocumentChange]) async throws -> Set<String>? {
        guard !pushSelection.isEmpty else { return nil }
        let live = try await datastore.documents(ids: changes.filter { !$0.isDeleted }.map(\.docID))
        var chosen = Set(
            live.filter { revision in pushSelection.allSatisfy { $0.matches(revision.body) } }.map(\.docID)
        )
        let deleted = changes.filter(\.isDeleted).map { (docID: $0.docID, revID: $0.revID) }
        guard !deleted.isEmpty else { return chosen }
        let parents = try await datastore.outgoingRevisions(deleted, maximumAncestry: 2).compactMap { tombstone in
            tombstone.ancestry.count > 1
                ? (docID: tombstone.docID, tag: tags.revisionTag(docID: tombstone.docID, revID: tombstone.ancestry[1]))
                : nil
        }
        var missing = Set<String>()
        for chunk in parents.chunked(into: 1_000) {
            missing.formUnion(try await client.missingRevisionTags(type: type, tags: chunk.map(\.tag)))
        }
        for parent in parents where !missing.contains(parent.tag) { chosen.insert(parent.docID) }
        return chosen
    }

    private func send(
        _ batch: [(write: Client.RevisionWrite, docID: String)],
        bytes: Int,
        _ report: inout ReplicationReport,
        _ documents: inout Set<String>,
        _ progress: (ReplicationEvent) -> Void
    ) async throws {
        let outcomes = try await SyncError.overCaps("the push") {
            try await client.writeRevisions(type: type, batch.map(\.write))
        }
        let stored = zip(batch, outcomes).filter { $1.created }.map { $0.0.docID }
        report.revisionsPushed += stored.count
        documents.formUnion(stored)
        report.documentsPushed = documents.count
        report.bytesPushed += bytes
        report.duration = ContinuousClock.now - started
        progress(.pushed(report))
    }

    /// The reference of `attachment`: its body is uploaded as a file record of the type unless this replica knows
    /// one with the same content address already (it uploaded or received it).
    private func uploaded(_ attachment: Attachment, of revision: OutgoingRevision) async throws -> AttachmentReference {
        let address = tags.attachmentAddress(digest: attachment.digest)
        let known = attachmentKey(address)
        let record: UUID
        if let noted = try await datastore.checkpoint(known).flatMap({ UUID(uuidString: $0) }) {
            record = noted
        } else {
            let source = try await datastore.document(id: revision.docID, rev: revision.revID)
            record = try await SyncError.overCaps("an attachment of a pushed revision") {
                try await client.writeFile(
                    type: type,
                    plain: [
                        RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
                        RevisionRecord.PlainKey.attachment: address,
                    ],
                    fileName: "attachment",
                    contents: datastore.attachmentContents(named: attachment.name, of: source)
                ).meta.recordID
            }
            try await datastore.setCheckpoint(known, record.uuidString.lowercased())
        }
        return AttachmentReference(
            contentType: attachment.contentType,
            length: attachment.length,
            digest: attachment.digest,
            revpos: attachment.revpos,
            address: address,
            record: record
        )
    }

    /// The datastore's note of the file record that holds the body with content address `address`.
    func attachmentKey(_ address: String) -> String { "attachment:" + checkpointID + ":" + address }

    /// The attachments of a pulled revision: each body the datastore does not hold yet is downloaded, decrypted and
    /// written (encrypted under the datastore's key) as it arrives, and checked against the digest and length the
    /// signed revision record gives; `staged` shares bodies between revisions of one page.
    private func incoming(
        _ references: [String: AttachmentReference],
        docID: String,
        staged: inout [String: StagedAttachment]
    ) async throws -> [IncomingAttachment] {
        var attachments: [IncomingAttachment] = []
        for (name, reference) in references.sorted(by: { $0.key < $1.key }) {
            let attachment = Attachment(
                replicatedName: name,
                contentType: reference.contentType,
                length: reference.length,
                digest: reference.digest,
                revpos: reference.revpos
            )
            let slot = "\(docID)\u{0}\(name)\u{0}\(reference.revpos)\u{0}\(reference.digest)"
            if let body = staged[slot] {
                attachments.append(IncomingAttachment(attachment, staged: body))
                continue
            }
            if try await datastore.hasAttachment(
                docID: docID,
                name: name,
                revpos: reference.revpos,
                digest: reference.digest
            ) {
                attachments.append(IncomingAttachment(attachment, staged: nil))
                continue
            }
            let body = try await datastore.stageAttachment(docID: docID, name: name, revpos: reference.revpos)
            staged[slot] = body
            do {
                _ = try await client.readFile(recordID: reference.record, plaintextSize: reference.length) { piece in
                    try await body.append(piece)
                }
            } catch let error as ClientError where error.code == .tampered {
                throw SyncError(.tampered, "an attachment's body does not decrypt", underlying: error)
            }
            let (length, digest) = try await body.finish()
            guard length == reference.length, ConstantTime.equals(Array(digest.utf8), Array(reference.digest.utf8))
            else {
                throw SyncError(.tampered, "an attachment's body is not the one its revision record names")
            }
            try await datastore.setCheckpoint(
                attachmentKey(reference.address),
                reference.record.uuidString.lowercased()
            )
            attachments.append(IncomingAttachment(attachment, staged: body))
        }
        return attachments
    }

    func pull(_ report: inout ReplicationReport, _ progress: (ReplicationEvent) -> Void) async throws {
        let key = pullKey
        var after = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        var state = try await membership()
        while true {
            try Task.checkCancellation()
            var writers = state.allowedWriters(owner: owner)
            var (page, dropped, unverified) = try await revisionRecords(after: after, writers: writers)
            guard !page.records.isEmpty || !dropped.isEmpty || !unverified.isEmpty else { return }
            // A page that does not move past the checkpoint would be read again forever: a server bug or a hostile
            // one, refused before anything of it is applied.
            guard page.lastIndex > after else {
                throw SyncError(.invalidResponse, "the server's changes feed did not move past index \(after)")
            }
            // A grant in this page lets in a writer whose records later in the page were left out: read it again
            // with that writer (at most a few rounds; each adds writers).
            for _ in 0..<4 {
                var folded = state
                for record in page.records
                where record.meta.writerID.uuidString.lowercased() == owner
                    && record.meta.plain[RevisionRecord.PlainKey.membership] != nil
                {
                    try folded.apply(
                        MembershipRecord(fields: record.data, plain: record.meta.plain),
                        recordID: record.meta.recordID.uuidString.lowercased()
                    )
                }
                let grown = folded.allowedWriters(owner: owner).subtracting(writers)
                guard dropped.contains(where: { grown.contains($0.writerID.lowercased()) }) else { break }
                writers.formUnion(grown)
                (page, dropped, unverified) = try await revisionRecords(after: after, writers: writers)
            }
            // Every record of the page is checked before any is applied, in the server's order: membership changes
            // (the owner's only) decide whose revisions count from there on. Checkpoint records and attachment
            // bodies (signed, so the server cannot turn a revision into one) are skipped; purge markers are applied
            // after the page's revisions.
            var bytes = 0
            var refused = dropped.filter { !Self.isBookkeeping($0.plain) }.count + unverified.count
            var purges: [PurgeRecord] = []
            var revisionRecords: [Record] = []
            for record in page.records {
                let writer = record.meta.writerID.uuidString.lowercased()
                let plain = record.meta.plain
                if Self.isBookkeeping(plain) { continue }
                if plain[RevisionRecord.PlainKey.membership] != nil {
                    guard writer == owner else {
                        refused += 1
                        continue
                    }
                    try state.apply(
                        MembershipRecord(fields: record.data, plain: plain),
                        recordID: record.meta.recordID.uuidString.lowercased()
                    )
                    continue
                }
                guard writer == owner || state.access[writer] == .readWrite else {
                    refused += 1
                    continue
                }
                if plain[RevisionRecord.PlainKey.purge] != nil {
                    let marker: Result<PurgeRecord, SyncError>
                    do {
                        marker = .success(try PurgeRecord(fields: record.data, plain: plain, tags: tags))
                    } catch {
                        marker = .failure(error)
                    }
                    switch marker {
                    case .success(let marker): purges.append(marker)
                    case .failure where isTolerated(writer): refused += 1
                    case .failure(let error): throw error
                    }
                } else {
                    revisionRecords.append(record)
                }
            }
            // The bodies of attachments the datastore lacks, received before the page is applied; removed unless a
            // revision took them.
            var staged: [String: StagedAttachment] = [:]
            defer { for body in staged.values { body.discard() } }
            var revisions: [IncomingRevision] = []
            for record in revisionRecords {
                let writer = record.meta.writerID.uuidString.lowercased()
                let checked: Result<IncomingRevision?, any Error>
                do {
                    checked = .success(try await incomingRevision(record, bytes: &bytes, staged: &staged))
                } catch {
                    checked = .failure(error)
                }
                switch checked {
                case .success(let revision?): revisions.append(revision)
                case .success(nil): continue
                case .failure(let error) where isTolerated(writer) && Self.isMalformed(error): refused += 1
                case .failure(let error): throw error
                }
            }
            // The page and its checkpoint in one transaction (CouchDB saves the checkpoint after the page is durable).
            let applied = try await datastore.applyReplicated(
                revisions,
                purges: purges.map { ($0.docID, Set($0.revIDs)) },
                checkpoint: key,
                value: String(page.lastIndex),
                notes: [membersKey: state.encoded]
            )
            report.revisionsRefused += refused
            // A replica that had not heard of a purge may have sent purged revisions again before it pulled the
            // marker: whoever removes them locally asks the server to forget them too (idempotent).
            if applied.purged > 0 {
                try await removeFromServer(purges.flatMap { marker in marker.revIDs.map { (marker.docID, $0) } })
            }
            report.revisionsPurged += applied.purged
            report.revisionsApplied += applied.added
            report.conflictsCreated += applied.conflicted.count
            report.documentsPulled += applied.documents.count
            report.revisionsPulled += revisions.count
            report.bytesPulled += bytes
            report.duration = ContinuousClock.now - started
            after = page.lastIndex
            progress(.pulled(report))
        }
    }

    /// `record` read as a revision (every bound and its tags checked), its body parsed and the attachment bodies
    /// the datastore lacks received into `staged`; nil when the pull filter leaves it out.
    private func incomingRevision(
        _ record: Record,
        bytes: inout Int,
        staged: inout [String: StagedAttachment]
    ) async throws -> IncomingRevision? {
        let revision = try RevisionRecord(fields: record.data, plain: record.meta.plain, tags: tags)
        let generation = try RevisionAncestry.generation(of: revision.revID)
        let body = revision.isDeleted ? [:] : try Self.body(revision.body)
        let references =
            revision.isDeleted ? [:] : try AttachmentReference.decode(revision.attachments, generation: generation)
        bytes += revision.body.utf8.count
        if let pullFilter, !revision.isDeleted, !pullFilter.matches(body) { return nil }
        return IncomingRevision(
            docID: revision.docID,
            history: revision.ancestry,
            body: body,
            isDeleted: revision.isDeleted,
            attachments: try await incoming(references, docID: revision.docID, staged: &staged)
        )
    }

    /// Whether a record of `writer` that does not verify is refused alone (counted in
    /// ``ReplicationReport/revisionsRefused``) rather than failing the pull: so for another member's records. A
    /// read-write member could otherwise stop every other member's pulls for good with one malformed record it
    /// signed (a revoke would not help: it was written while the member had access). The server can already
    /// withhold any record, so refusing one it altered costs nothing it could not take; this client's own records
    /// and the owner's still fail the pull as ``SyncError/Code/tampered``, which is how a server's tampering shows.
    private func isTolerated(_ writer: String) -> Bool { writer != owner && writer != clientID }

    /// A failure that says a record is malformed or altered (not that the network or the datastore failed).
    private static func isMalformed(_ error: any Error) -> Bool {
        guard let error = error as? SyncError else { return false }
        return [.tampered, .invalidRecord, .unsupportedVersion].contains(error.code)
    }

    /// Asks the server to delete this client's records of the revisions `revisions` names (at most 1,000 a request).
    func removeFromServer(_ revisions: [(docID: String, revID: String)]) async throws {
        for chunk in revisions.chunked(into: 1_000) {
            _ = try await client.removeRevisions(
                type: type,
                tags: chunk.map { tags.revisionTag(docID: $0.docID, revID: $0.revID) }
            )
        }
    }

    /// A checkpoint record or an attachment body: not a revision, not a membership change.
    static func isBookkeeping(_ plain: [String: String]) -> Bool {
        plain[RevisionRecord.PlainKey.checkpoint] != nil || plain[RevisionRecord.PlainKey.attachment] != nil
    }

    /// A page of revision records after `after`, records of writers outside `writers` left out (their metas in
    /// `dropped`); one whose signature or ciphertext does not verify is ``SyncError/Code/tampered``, unless another
    /// member wrote it (its meta in `unverified` then).
    private func revisionRecords(
        after: Int64,
        writers: Set<String>
    ) async throws -> (QueryResult, dropped: [RecordMeta], unverified: [RecordMeta]) {
        let outcome: Result<(page: QueryResult, dropped: [RecordMeta], unverified: [RecordMeta]), ClientError>
        do {
            outcome = .success(
                try await client.revisionRecords(
                    type: type,
                    writers: writers,
                    tolerating: writers.filter(isTolerated),
                    afterIndex: after,
                    count: Replicator.pullPageSize
                )
            )
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let found): return found
        case .failure(let error) where error.code == .tampered:
            throw SyncError(.tampered, "a revision record from the server does not verify", underlying: error)
        case .failure(let error): throw error
        }
    }

    /// A pulled body: a JSON object (``RevisionRecord`` has bounded its size).
    private static func body(_ text: String) throws(SyncError) -> [String: JSONValue] {
        do {
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        } catch {
            throw SyncError(.invalidRecord, "a revision's body is not a JSON object", underlying: error)
        }
    }
}
