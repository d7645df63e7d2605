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

/// Purge, compaction and discarding what a read-only member cannot push: the replica's upkeep.
extension Replicator {
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
            let page = try await datastore.changes(since: since, limit: ReplicationSession.pushPageSize)
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
}
