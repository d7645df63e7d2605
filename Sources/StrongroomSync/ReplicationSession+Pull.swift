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

/// Pull: every revision record the datastore lacks comes down, page by page in the server's order; each page is
/// checked whole (writers, membership, signatures, tags, attachment bodies) before any of it is applied, then applied
/// with its checkpoint in one transaction.
extension ReplicationSession {
    /// A page of records after a checkpoint, as the server served it.
    struct FetchedPage {
        /// The records of the writers asked for, verified (or tolerated, for another member's).
        var records: [Record]
        /// The index the page ends at.
        var lastIndex: Int64
        /// Records of other writers, left out (metas only).
        var dropped: [RecordMeta]
        /// Another member's records that do not verify (metas only).
        var unverified: [RecordMeta]

        var isEmpty: Bool { records.isEmpty && dropped.isEmpty && unverified.isEmpty }
    }

    /// A page's records sorted by what they are, membership folded in the server's order.
    struct SortedPage {
        var revisions: [Record] = []
        var purges: [PurgeRecord] = []
        /// Records not applied: writers without write access, another member's that do not verify.
        var refused = 0
    }

    func pull(_ report: inout ReplicationReport, _ progress: (ReplicationEvent) -> Void) async throws {
        let key = names.pullKey
        var after = Int64(try await datastore.checkpoint(key) ?? "0") ?? 0
        var state = try await membership()
        while true {
            try Task.checkCancellation()
            guard let page = try await page(after: after, state: state) else { return }
            var sorted = try sort(page, state: &state)
            // The bodies of attachments the datastore lacks, received before the page is applied; removed unless a
            // revision took them.
            var staged: [String: StagedAttachment] = [:]
            defer { for body in staged.values { body.discard() } }
            var bytes = 0
            let revisions = try await checked(
                sorted.revisions,
                refused: &sorted.refused,
                bytes: &bytes,
                staged: &staged
            )
            // The page and its checkpoint in one transaction (CouchDB saves the checkpoint after the page is durable).
            let applied = try await datastore.applyReplicated(
                revisions,
                purges: sorted.purges.map { ($0.docID, Set($0.revIDs)) },
                checkpoint: key,
                value: String(page.lastIndex),
                notes: [names.membersKey: state.encoded]
            )
            report.revisionsRefused += sorted.refused
            // A replica that had not heard of a purge may have sent purged revisions again before it pulled the
            // marker: whoever removes them locally asks the server to forget them too (idempotent).
            if applied.purged > 0 {
                try await removeFromServer(sorted.purges.flatMap { marker in marker.revIDs.map { (marker.docID, $0) } })
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

    /// The page after `after` of the writers `state` allows; nil when the server has nothing more. A grant in the
    /// page lets in a writer whose records later in the page were left out: the page is read again with that writer
    /// (at most a few rounds; each adds writers).
    private func page(after: Int64, state: MembershipState) async throws -> FetchedPage? {
        var writers = state.allowedWriters(owner: owner)
        var page = try await revisionRecords(after: after, writers: writers)
        guard !page.isEmpty else { return nil }
        // A page that does not move past the checkpoint would be read again forever: a server bug or a hostile one,
        // refused before anything of it is applied.
        guard page.lastIndex > after else {
            throw SyncError(.invalidResponse, "the server's changes feed did not move past index \(after)")
        }
        for _ in 0..<4 {
            // Every writer allowed at some point of the page: one granted and revoked within it wrote revisions
            // that count in between (sort(_:state:) applies them in order).
            var folded = state
            var allowed = writers
            for record in page.records
            where ClientID(record.meta.writerID) == owner
                && record.meta.plain[RevisionRecord.PlainKey.membership] != nil
            {
                try folded.apply(
                    MembershipRecord(fields: record.data, plain: record.meta.plain),
                    recordID: RecordID(record.meta.recordID).description
                )
                allowed.formUnion(folded.allowedWriters(owner: owner))
            }
            let grown = allowed.subtracting(writers)
            guard page.dropped.contains(where: { ClientID($0.writerID).map(grown.contains) ?? false }) else { break }
            writers.formUnion(grown)
            page = try await revisionRecords(after: after, writers: writers)
        }
        return page
    }

    /// Sorts a page's records in the server's order: membership changes (the owner's only) decide whose revisions
    /// count from there on and are folded into `state`; checkpoint records and attachment bodies (signed, so the
    /// server cannot turn a revision into one) are skipped; purge markers are applied after the page's revisions.
    private func sort(_ page: FetchedPage, state: inout MembershipState) throws -> SortedPage {
        var sorted = SortedPage()
        sorted.refused = page.dropped.filter { !Self.isBookkeeping($0.plain) }.count + page.unverified.count
        for record in page.records {
            let writer = ClientID(record.meta.writerID)
            let plain = record.meta.plain
            if Self.isBookkeeping(plain) { continue }
            if plain[RevisionRecord.PlainKey.membership] != nil {
                guard writer == owner else {
                    sorted.refused += 1
                    continue
                }
                try state.apply(
                    MembershipRecord(fields: record.data, plain: plain),
                    recordID: RecordID(record.meta.recordID).description
                )
                continue
            }
            guard writer == owner || state.access(of: writer) == .readWrite else {
                sorted.refused += 1
                continue
            }
            guard plain[RevisionRecord.PlainKey.purge] != nil else {
                sorted.revisions.append(record)
                continue
            }
            let marker: Result<PurgeRecord, SyncError>
            do {
                marker = .success(try PurgeRecord(fields: record.data, plain: plain, tags: tags))
            } catch {
                marker = .failure(error)
            }
            switch marker {
            case .success(let marker): sorted.purges.append(marker)
            case .failure where isTolerated(writer): sorted.refused += 1
            case .failure(let error): throw error
            }
        }
        return sorted
    }

    /// The revisions of `records`, each checked and its missing attachment bodies received into `staged`; another
    /// member's malformed record is counted in `refused` instead of failing the pull.
    private func checked(
        _ records: [Record],
        refused: inout Int,
        bytes: inout Int,
        staged: inout [String: StagedAttachment]
    ) async throws -> [IncomingRevision] {
        var revisions: [IncomingRevision] = []
        for record in records {
            let writer = ClientID(record.meta.writerID)
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
        return revisions
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
    private func isTolerated(_ writer: ClientID) -> Bool { writer != owner && writer != clientID }

    /// A failure that says a record is malformed or altered (not that the network or the datastore failed).
    private static func isMalformed(_ error: any Error) -> Bool {
        guard let error = error as? SyncError else { return false }
        return [.tampered, .invalidRecord, .unsupportedVersion].contains(error.code)
    }

    /// A checkpoint record or an attachment body: not a revision, not a membership change.
    static func isBookkeeping(_ plain: [String: String]) -> Bool {
        plain[RevisionRecord.PlainKey.checkpoint] != nil || plain[RevisionRecord.PlainKey.attachment] != nil
    }

    /// A page of revision records after `after`, records of writers outside `writers` left out (their metas in
    /// `dropped`); one whose signature or ciphertext does not verify is ``SyncError/Code/tampered``, unless another
    /// member wrote it (its meta in `unverified` then).
    private func revisionRecords(after: Int64, writers: Set<ClientID>) async throws -> FetchedPage {
        let outcome: Result<(page: QueryResult, dropped: [RecordMeta], unverified: [RecordMeta]), ClientError>
        do {
            outcome = .success(
                try await client.revisionRecords(
                    type: type,
                    writers: Set(writers.map(\.description)),
                    tolerating: Set(writers.filter(isTolerated).map(\.description)),
                    afterIndex: after,
                    count: Self.pullPageSize
                )
            )
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let found):
            return FetchedPage(
                records: found.page.records,
                lastIndex: found.page.lastIndex,
                dropped: found.dropped,
                unverified: found.unverified
            )
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
