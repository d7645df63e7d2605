// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

extension Datastore {
    /// The documents changed after sequence `since`, one entry per document at its latest change, in sequence order
    /// (CDTDatastore's `CDTFetchChanges`): the basis for replication and sync.
    ///
    /// - Throws: ``DatastoreError/Code/invalidArgument`` for a negative `since` or `limit`;
    ///   ``DatastoreError/Code/documentTooLarge`` for a `limit` above ``DatastoreLimits/maximumBatchCount``.
    public func changes(since: Int64 = 0, limit: Int = 1000) async throws(DatastoreError) -> ChangesPage {
        guard since >= 0 else { throw DatastoreError(.invalidArgument, "since is not negative") }
        try checkPage(offset: 0, limit: limit)
        return try await read { store throws(DatastoreError) in
            let changes = try store.sql { () throws(SQLiteError) in try store.changes(since: since, limit: limit) }
            return ChangesPage(changes: changes, lastSequence: changes.last?.sequence ?? since)
        }
    }

    /// How many writes this process has committed through this datastore's handles (for a live replicator).
    package var changeGeneration: UInt64 { notifier.generation }

    /// Returns after a write later than `seen` committed through this process's handles, after `timeout`, or when
    /// the task is cancelled.
    package func waitForChange(after seen: UInt64, timeout: Duration) async {
        await notifier.wait(after: seen, timeout: timeout)
    }

    /// Follows the changes feed: every change after `since`, then each new one as it is committed — at once for
    /// writes through this process's handles, within `pollInterval` for writes by other processes. Ends when the
    /// consuming task is cancelled; fails with the datastore's error (``DatastoreError/Code/closed`` after
    /// ``close()``).
    public func changeStream(
        since: Int64 = 0,
        pollInterval: Duration = .seconds(1)
    ) -> AsyncThrowingStream<DocumentChange, any Error> {
        let notifier = notifier
        return AsyncThrowingStream { continuation in
            let task = Task {
                var last = since
                do {
                    while !Task.isCancelled {
                        let seen = notifier.generation
                        let page = try await self.changes(since: last, limit: 1000)
                        for change in page.changes { continuation.yield(change) }
                        last = page.lastSequence
                        if page.changes.count < 1000 { await notifier.wait(after: seen, timeout: pollInterval) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension RevisionStore {
    /// The feed's rows: each document whose leaves changed after `since`, at its latest leaf sequence.
    ///
    /// One walk up the sequence (the table's own key) from `since`, stopping after `limit` documents: a leaf is
    /// reported when no later leaf of its document exists (a lookup in that document's revisions). A page costs
    /// the same however large the datastore is; the `GROUP BY` this replaces grouped every later revision per page.
    func changes(since: Int64, limit: Int) throws(SQLiteError) -> [DocumentChange] {
        let statement = try connection.prepare(
            """
            SELECT r.doc_id, r.sequence FROM revs r
            WHERE r.sequence > ? AND r.current = 1
              AND NOT EXISTS (SELECT 1 FROM revs y WHERE y.doc_id = r.doc_id AND y.current = 1 AND y.sequence > r.sequence)
            ORDER BY r.sequence LIMIT ?
            """
        )
        try statement.bind(since, at: 1)
        try statement.bind(Int64(limit), at: 2)
        var found: [(docRow: Int64, sequence: Int64)] = []
        while try statement.step() { found.append((statement.int64(at: 0), statement.int64(at: 1))) }
        var changes: [DocumentChange] = []
        for (docRow, sequence) in found {
            let leaves = try self.leaves(docRow: docRow)
            guard let winner = leaves.first else { continue }
            changes.append(
                DocumentChange(
                    sequence: sequence,
                    docID: winner.docID,
                    revID: winner.revID,
                    isDeleted: winner.isDeleted,
                    leafRevIDs: leaves.map(\.revID)
                )
            )
        }
        return changes
    }
}
