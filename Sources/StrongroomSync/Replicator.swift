// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomClient
import StrongroomCore
import StrongroomCrypto
public import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
/// ``Replicator/events(_:)`` yields it (CDTDatastore's replicator delegate).
public enum ReplicationEvent: Sendable, Hashable {
    /// A batch of revisions was stored on the server; the report so far.
    case pushed(ReplicationReport)
    /// A page of revisions was applied, with its checkpoint, in one transaction; the report so far.
    case pulled(ReplicationReport)
    /// The replication finished: nothing it read is left to send or apply. The final report.
    case completed(ReplicationReport)
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

    /// A replicator of `datastore`, known to the server under the name `name` (the same name on every device).
    public init(datastore: Datastore, name: String, client: Client) {
        self.datastore = datastore
        self.name = name
        self.client = client
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
        if direction != .pull { try await session.push(&report, progress) }
        if direction != .push { try await session.pull(&report, progress) }
        try await remote.advance(from: stored.record)
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
                _ = try await client.write(
                    type: session.type,
                    data: marker.fields,
                    plain: marker.plain(tags: session.tags)
                )
            }
            try await session.removeFromServer(revisions.map { (docID, $0) })
            removed += try await datastore.purge(docID: docID, revisions: Set(revisions), remember: true).count
        }
        return removed
    }

    /// The datastore's type on the server, its tag key (from the type's access key, made on first use) and its
    /// checkpoint names, for a replication or a compaction starting at `started`.
    private func session(started: ContinuousClock.Instant) async throws -> Session {
        let configuration = client.configuration
        let clientID = configuration.clientID.uuidString.lowercased()
        let type = try ReplicationTypeKey(privateKey: configuration.keys.encryptionKey, clientID: clientID)
            .recordType(forDatastoreNamed: name)
        return Session(
            datastore: datastore,
            client: client,
            type: type,
            tags: try RevisionTagKey(accessKey: try await client.replicationAccessKey(type: type)),
            clientID: clientID,
            checkpointID: "\(clientID)@\(configuration.apiURL.absoluteString)/\(type)",
            started: started
        )
    }

    /// The events of one replication in `direction`, ending after ``ReplicationEvent/completed(_:)`` or with its
    /// error. The replication starts at once; it is cancelled when the sequence is dropped or the task iterating it
    /// is cancelled.
    ///
    /// - Parameter direction: push, pull, or both (push first).
    public func events(_ direction: ReplicationDirection = .both) -> AsyncThrowingStream<ReplicationEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ReplicationEvent.self)
        let task = Task {
            do {
                try await replicate(direction) { continuation.yield($0) }
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
    let checkpointID: String
    let started: ContinuousClock.Instant

    /// The datastore's checkpoint names: the changes-feed sequence pushed up to, the server index pulled up to.
    var pushKey: String { "push:" + checkpointID }
    var pullKey: String { "pull:" + checkpointID }

    func push(_ report: inout ReplicationReport, _ progress: (ReplicationEvent) -> Void) async throws {
        let key = pushKey
        var documents = Set<String>()
        var since = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        while true {
            try Task.checkCancellation()
            let page = try await datastore.changes(since: since, limit: Replicator.pushPageSize)
            guard !page.changes.isEmpty else { return }
            var candidates: [(docID: String, revID: String, tag: String)] = []
            for change in page.changes {
                for revID in change.leafRevIDs {
                    candidates.append((change.docID, revID, tags.revisionTag(docID: change.docID, revID: revID)))
                }
            }
            var missing = Set<String>()
            for chunk in candidates.chunked(into: 1_000) {
                missing.formUnion(try await client.missingRevisionTags(type: type, tags: chunk.map(\.tag)))
            }
            let wanted = candidates.filter { missing.contains($0.tag) }.map { (docID: $0.docID, revID: $0.revID) }
            let revisions = try await datastore.outgoingRevisions(
                wanted,
                maximumAncestry: ReplicationLimits.maximumAncestry
            )
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

    private func send(
        _ batch: [(write: Client.RevisionWrite, docID: String)],
        bytes: Int,
        _ report: inout ReplicationReport,
        _ documents: inout Set<String>,
        _ progress: (ReplicationEvent) -> Void
    ) async throws {
        let outcomes = try await client.writeRevisions(type: type, batch.map(\.write))
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
            let info = try await client.writeFile(
                type: type,
                plain: [
                    RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
                    RevisionRecord.PlainKey.attachment: address,
                ],
                fileName: "attachment",
                contents: datastore.attachmentContents(named: attachment.name, of: source)
            )
            record = info.meta.recordID
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
        while true {
            try Task.checkCancellation()
            let page = try await revisionRecords(after: after)
            guard !page.records.isEmpty else { return }
            // A page that does not move past the checkpoint would be read again forever: a server bug or a hostile
            // one, refused before anything of it is applied.
            guard page.lastIndex > after else {
                throw SyncError(.invalidResponse, "the server's changes feed did not move past index \(after)")
            }
            // Every record of the page is checked before any is applied. Checkpoint records and attachment bodies
            // (signed, so the server cannot turn a revision into one) are skipped; purge markers are applied after
            // the page's revisions.
            var bytes = 0
            if page.records.contains(where: { $0.meta.writerID.uuidString.lowercased() != clientID }) {
                throw SyncError(.tampered, "a revision record of another writer is not part of this datastore")
            }
            let purges = try page.records.filter { $0.meta.plain[RevisionRecord.PlainKey.purge] != nil }.map {
                record throws -> PurgeRecord in
                try PurgeRecord(fields: record.data, plain: record.meta.plain, tags: tags)
            }
            let revisionRecords = page.records.filter {
                $0.meta.plain[RevisionRecord.PlainKey.checkpoint] == nil
                    && $0.meta.plain[RevisionRecord.PlainKey.attachment] == nil
                    && $0.meta.plain[RevisionRecord.PlainKey.purge] == nil
            }
            let verified = try revisionRecords.map {
                record throws -> (RevisionRecord, [String: JSONValue], [String: AttachmentReference]) in
                let revision = try RevisionRecord(fields: record.data, plain: record.meta.plain, tags: tags)
                bytes += revision.body.utf8.count
                let generation = try RevisionAncestry.generation(of: revision.revID)
                return (
                    revision, revision.isDeleted ? [:] : try Self.body(revision.body),
                    revision.isDeleted
                        ? [:] : try AttachmentReference.decode(revision.attachments, generation: generation)
                )
            }
            // The bodies of attachments the datastore lacks, received before the page is applied; removed unless a
            // revision took them.
            var staged: [String: StagedAttachment] = [:]
            defer { for body in staged.values { body.discard() } }
            var revisions: [IncomingRevision] = []
            for (revision, body, references) in verified {
                revisions.append(
                    IncomingRevision(
                        docID: revision.docID,
                        history: revision.ancestry,
                        body: body,
                        isDeleted: revision.isDeleted,
                        attachments: try await incoming(references, docID: revision.docID, staged: &staged)
                    )
                )
            }
            // The page and its checkpoint in one transaction (CouchDB saves the checkpoint after the page is durable).
            let applied = try await datastore.applyReplicated(
                revisions,
                purges: purges.map { ($0.docID, Set($0.revIDs)) },
                checkpoint: key,
                value: String(page.lastIndex)
            )
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

    /// Asks the server to delete this client's records of the revisions `revisions` names (at most 1,000 a request).
    func removeFromServer(_ revisions: [(docID: String, revID: String)]) async throws {
        for chunk in revisions.chunked(into: 1_000) {
            _ = try await client.removeRevisions(
                type: type,
                tags: chunk.map { tags.revisionTag(docID: $0.docID, revID: $0.revID) }
            )
        }
    }

    /// A page of revision records after `after`; one whose signature or ciphertext does not verify is
    /// ``SyncError/Code/tampered``.
    private func revisionRecords(after: Int64) async throws -> QueryResult {
        let outcome: Result<QueryResult, ClientError>
        do {
            outcome = .success(
                try await client.revisionRecords(
                    type: type,
                    writers: [clientID],
                    afterIndex: after,
                    count: Replicator.pullPageSize
                )
            )
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let page): return page
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
