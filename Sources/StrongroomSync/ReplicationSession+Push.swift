// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Push: every local leaf revision the server lacks goes up, asked with blind tags, in bounded batches.
extension ReplicationSession {
    /// Sends every local leaf revision the server lacks; with `sending` false (a read-only member), only counts
    /// them and returns how many there are.
    ///
    /// The changes the last sync pushed are looked at again first (from the verified checkpoint, not the push
    /// checkpoint): a revision of theirs the server lacks now was acknowledged and then dropped. It is sent again and
    /// added to `lost`, which the caller checks once the pull has brought other replicas' purges and compactions.
    @discardableResult
    func push(
        _ report: inout ReplicationReport,
        _ progress: (ReplicationEvent) -> Void,
        sending: Bool = true,
        lost: inout [(docID: String, revID: String)]
    ) async throws -> Int {
        let key = names.pushKey
        var documents = Set<String>()
        var since = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        // Read from the datastore's file: range-checked (a value past the push checkpoint means no window).
        let acknowledged = since
        if sending, let verified = Int64(try await datastore.checkpoint(names.pushVerifiedKey) ?? ""),
            (0..<acknowledged).contains(verified)
        {
            since = verified
        }
        var unsent = 0
        while true {
            try Task.checkCancellation()
            let page = try await datastore.changes(since: since, limit: Self.pushPageSize)
            guard !page.changes.isEmpty else {
                if sending { try await pushVerified(upTo: acknowledged) }
                return unsent
            }
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
            let earlier = Dictionary(page.changes.map { ($0.docID, $0.sequence) }) { first, _ in first }
            for revision in revisions where earlier[revision.docID].map({ $0 <= acknowledged }) ?? false {
                lost.append((revision.docID, revision.revID))
            }
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
                if !batch.isEmpty, batch.count == 500 || batchBytes + size > Self.batchBytes {
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
            try await datastore.setCheckpoint(key, String(max(since, acknowledged)))
        }
    }

    /// Marks what the last sync pushed as found on the server (or sent again): the next sync looks again only at
    /// what this one pushed.
    func pushVerified(upTo sequence: Int64) async throws {
        try await datastore.setCheckpoint(names.pushVerifiedKey, String(sequence))
    }

    /// Of `candidates` (revisions the server had acknowledged and no longer held), those that are still leaves here
    /// after the pull: a revision another replica purged is gone, one it compacted has descendants.
    func stillLeaves(_ candidates: [(docID: String, revID: String)]) async throws -> Int {
        var count = 0
        for (docID, group) in Dictionary(grouping: candidates, by: \.docID) {
            let leaves = Set(((try? await datastore.leaves(docID: docID)) ?? []).map(\.revID))
            count += group.filter { leaves.contains($0.revID) }.count
        }
        return count
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
}
