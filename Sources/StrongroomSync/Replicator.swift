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

    public init() {}
}

/// Replicates a datastore through the Strongroom server with CouchDB's algorithm, end to end encrypted
/// (`docs/design/Replication.md`): push sends every leaf revision the server lacks (asked with blind tags), pull
/// applies every revision record the datastore lacks with `forceInsert`, each after checking the record against its
/// tags. Checkpoints live in the datastore, so an interrupted replication resumes where it stopped, and a repeated
/// one sends and applies nothing.
///
/// This slice replicates one client's datastore between its devices: revisions written by another client are refused.
public struct Replicator: Sendable {
    /// Changes read from the datastore, and records read from the server, per round.
    static let pageSize = 200
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
    /// - Throws: ``SyncError`` for a record that does not verify (nothing of its page is applied), `ClientError`
    ///   from the server, `DatastoreError` from the datastore. Cancellation stops between pages; what was applied
    ///   stays applied and the checkpoint never runs ahead of it.
    public func replicate(_ direction: ReplicationDirection = .both) async throws -> ReplicationReport {
        let configuration = client.configuration
        let clientID = configuration.clientID.uuidString.lowercased()
        let type = try ReplicationTypeKey(privateKey: configuration.keys.encryptionKey, clientID: clientID)
            .recordType(forDatastoreNamed: name)
        let tags = try RevisionTagKey(accessKey: try await client.replicationAccessKey(type: type))
        let session = Session(
            datastore: datastore,
            client: client,
            type: type,
            tags: tags,
            clientID: clientID,
            checkpointID: "\(clientID)@\(configuration.apiURL.absoluteString)/\(type)"
        )
        var report = ReplicationReport()
        if direction != .pull { try await session.push(&report) }
        if direction != .push { try await session.pull(&report) }
        return report
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

    func push(_ report: inout ReplicationReport) async throws {
        let key = "push:" + checkpointID
        var since = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        while true {
            try Task.checkCancellation()
            let page = try await datastore.changes(since: since, limit: Replicator.pageSize)
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
            var batch: [Client.RevisionWrite] = []
            var batchBytes = 0
            for candidate in candidates where missing.contains(candidate.tag) {
                let record = try await revisionRecord(docID: candidate.docID, revID: candidate.revID)
                let write = Client.RevisionWrite(fields: record.fields, plain: record.plain(tags: tags))
                let size = record.body.utf8.count + record.attachments.utf8.count + 64 * record.ancestry.count
                if !batch.isEmpty, batch.count == 500 || batchBytes + size > Replicator.batchBytes {
                    report.revisionsPushed += try await send(batch)
                    (batch, batchBytes) = ([], 0)
                }
                batch.append(write)
                batchBytes += size
            }
            if !batch.isEmpty { report.revisionsPushed += try await send(batch) }
            since = page.lastSequence
            try await datastore.setCheckpoint(key, String(since))
        }
    }

    private func send(_ batch: [Client.RevisionWrite]) async throws -> Int {
        try await client.writeRevisions(type: type, batch).filter(\.created).count
    }

    /// The revision `revID` of `docID` as a record: its body, deletion and ancestry (at most 1,000 IDs).
    private func revisionRecord(docID: String, revID: String) async throws -> RevisionRecord {
        let revision = try await datastore.document(id: docID, rev: revID)
        let history = try await datastore.revisionHistory(of: revision).map(\.revID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = String(decoding: try encoder.encode(revision.body), as: UTF8.self)
        return try RevisionRecord(
            docID: docID,
            revID: revID,
            ancestry: Array(history.prefix(ReplicationLimits.maximumAncestry)),
            isDeleted: revision.isDeleted,
            body: revision.isDeleted ? "{}" : body
        )
    }

    func pull(_ report: inout ReplicationReport) async throws {
        let key = "pull:" + checkpointID
        var after = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        while true {
            try Task.checkCancellation()
            let page = try await client.query(
                QueryParams(
                    count: Replicator.pageSize,
                    types: [type],
                    includesAllWriters: true,
                    includesData: true,
                    afterIndex: after
                )
            )
            guard !page.records.isEmpty else { return }
            // A page that does not move past the checkpoint would be read again forever: a server bug or a hostile
            // one, refused before anything of it is applied.
            guard page.lastIndex > after else {
                throw SyncError(.invalidResponse, "the server's changes feed did not move past index \(after)")
            }
            // Every record of the page is checked before any is applied.
            let revisions = try page.records.map { record throws -> RevisionRecord in
                guard record.meta.writerID.uuidString.lowercased() == clientID else {
                    throw SyncError(.tampered, "a revision record of another writer is not part of this datastore")
                }
                return try RevisionRecord(fields: record.data, plain: record.meta.plain, tags: tags)
            }
            for revision in revisions {
                let body =
                    revision.isDeleted
                    ? [:] : try JSONDecoder().decode([String: JSONValue].self, from: Data(revision.body.utf8))
                let before = try? await datastore.document(id: revision.docID, rev: revision.revID)
                _ = try await datastore.forceInsert(
                    docID: revision.docID,
                    history: revision.ancestry,
                    body: body,
                    isDeleted: revision.isDeleted
                )
                if before == nil { report.revisionsApplied += 1 }
            }
            report.revisionsPulled += revisions.count
            after = page.lastIndex
            try await datastore.setCheckpoint(key, String(after))
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
