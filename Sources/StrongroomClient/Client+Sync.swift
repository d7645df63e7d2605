// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Foundation
import StrongroomCore
package import StrongroomCrypto
package import StrongroomWire

/// The server's replication routes (`docs/design/Replication.md`), for `StrongroomSync`'s replicator: package API
/// until the replicator that uses them is public.
extension Client {
    /// One revision record to store: its plaintext fields (encrypted here under this client's key for the type)
    /// and its plain meta, which must hold its blind tag under `sr.r`.
    package struct RevisionWrite: Sendable {
        package var fields: [String: String]
        package var plain: [String: String]

        package init(fields: [String: String], plain: [String: String]) {
            self.fields = fields
            self.plain = plain
        }
    }

    /// The first generation of this client's access key for `type` (made and stored as its own EAK on first use):
    /// a replicated datastore's key, from which its blind-tag key is derived, so its tags stay the same however
    /// often the type rotates. After a rotation it is reached from the current key through the links.
    ///
    /// - Throws: ``ClientError/Code/keyWithheld`` when the server does not serve every link.
    package func replicationAccessKey(type: String) async throws(ClientError) -> AccessKey {
        let (key, generation) = try await writerKeyEntry(type: type)
        return try await firstGenerationKey(
            from: key,
            generation: generation,
            writerID: clientID,
            userID: clientID,
            type: type
        )
    }

    /// The tags among `tags` that no record of `type` readable by this client carries, in order, without repeats
    /// (`POST /v2/sync/revs_diff`; at most 1,000 tags).
    package func missingRevisionTags(type: String, tags: [String]) async throws(ClientError) -> [String] {
        try await authenticated(
            .POST,
            E3DBPath.syncRevsDiff.render(),
            body: SyncRevsDiffRequest(type: type, tags: tags),
            success: [200],
            as: SyncRevsDiffResponse.self
        ).missing
    }

    /// Encrypts, signs (`rec_sig`) and stores revision records of `type` in one transaction, each at most once per
    /// tag (`POST /v2/sync/bulk`; at most 500). Returns, in order, each record's ID and whether this call stored it.
    package func writeRevisions(
        type: String,
        _ revisions: [RevisionWrite]
    ) async throws(ClientError) -> [SyncBulkResponse.Outcome] {
        let key = try await writerKey(type: type)
        var records: [RecordWriteRequest] = []
        records.reserveCapacity(revisions.count)
        for revision in revisions {
            records.append(
                RecordWriteRequest(
                    meta: .init(writerID: clientID, userID: clientID, type: type, plain: revision.plain),
                    data: FieldCipher.encrypt(fields: revision.fields, with: key),
                    recordSignature: recordSignature(type: type, plain: revision.plain, data: revision.fields)
                )
            )
        }
        return try await authenticated(
            .POST,
            E3DBPath.syncBulk.render(),
            body: SyncBulkRequest(records: records),
            success: [200],
            as: SyncBulkResponse.self
        ).records
    }

    /// One page of the revision records of `type` readable by this client, after `afterIndex` in the server's
    /// record order (`POST /v1/storage/search`), decrypted. A record written by a client outside `writers`
    /// (lowercase client IDs) is left out before anything is decrypted, its meta listed in `dropped`; every other
    /// record must carry its writer's `rec_sig` and verify under it, or the page is ``ClientError/Code/tampered`` —
    /// unless its writer is in `tolerating`: then it is left out and its meta listed in `unverified`.
    package func revisionRecords(
        type: String,
        writers: Set<String>,
        tolerating: Set<String> = [],
        afterIndex: Int64,
        count: Int
    ) async throws(ClientError) -> (page: QueryResult, dropped: [RecordMeta], unverified: [RecordMeta]) {
        try await search(
            QueryParams(
                count: count,
                types: [type],
                includesAllWriters: true,
                includesData: true,
                afterIndex: afterIndex
            ),
            requiringSignatures: true,
            writers: writers,
            tolerating: tolerating
        )
    }

    /// The first generation of the access key of `type` written by `ownerID` (as ``replicationAccessKey(type:)``),
    /// from the key shared with this client, fetched from the server (never from the cache: a replication learns at
    /// once that the owner has revoked it).
    ///
    /// - Throws: ``ClientError/Code/notFound`` or ``ClientError/Code/forbidden`` when it is not (or no longer)
    ///   shared with this client; ``ClientError/Code/keyWithheld`` when the server does not serve every link.
    package func sharedAccessKey(type: String, ownerID: UUID) async throws(ClientError) -> AccessKey {
        let owner = ClientID(ownerID).description
        await accessKeys.remove(writerID: owner, userID: owner, type: type)
        let (key, generation) = try await readerKeyEntry(writerID: owner, userID: owner, type: type)
        return try await firstGenerationKey(
            from: key,
            generation: generation,
            writerID: owner,
            userID: owner,
            type: type
        )
    }

    /// Waits, at most `wait` (and never so long that the request would time out), for a record of `type` readable
    /// by this client after `afterIndex` (`POST /v2/sync/changes`, a long-poll; a replica's checkpoint record does
    /// not count). Returns the first such record's index, or `afterIndex` when none came.
    package func waitForRecords(type: String, afterIndex: Int64, wait: Duration) async throws(ClientError) -> Int64 {
        let ceiling = transport.options.requestTimeout - .seconds(5)
        let seconds = max(0, min(wait, ceiling).components.seconds)
        return try await authenticated(
            .POST,
            E3DBPath.syncChanges.render(),
            body: SyncChangesRequest(type: type, afterIndex: afterIndex, wait: Int(min(seconds, 3_600))),
            success: [200],
            as: SyncChangesResponse.self
        ).lastIndex
    }

    /// Sets what `member` may write to the replicated type `type` this client owns, so the server refuses a revoked
    /// or read-only member's writes of it (`POST /v2/sync/access`).
    package func setSyncAccess(type: String, member: UUID, access: SyncAccess) async throws(ClientError) {
        _ = try await authenticated(
            .POST,
            E3DBPath.syncAccess.render(),
            body: SyncAccessRequest(type: type, member: ClientID(member).description, access: access),
            success: [200],
            as: SyncAccessResponse.self
        )
    }

    /// Deletes this client's revision records of `type` that carry one of `tags` (`POST /v2/sync/purge`; at most
    /// 1,000); returns how many there were.
    package func removeRevisions(type: String, tags: [String]) async throws(ClientError) -> Int {
        try await authenticated(
            .POST,
            E3DBPath.syncPurge.render(),
            body: SyncPurgeRequest(type: type, tags: tags),
            success: [200],
            as: SyncPurgeResponse.self
        ).removed
    }
}
