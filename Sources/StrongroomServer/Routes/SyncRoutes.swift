// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire

/// Replication (`docs/design/Replication.md`): the two steps of CouchDB's algorithm the v1 API lacks, over records
/// whose only plaintext is blind tags. The changes feed is v1 search with `after_index`.
///
/// - `POST /v2/sync/revs_diff`: which revision tags no record of a type readable by the caller carries.
/// - `POST /v2/sync/bulk`: store revision records in one transaction, each at most once per writer, type and tag,
///   so a retry after a kill stores nothing twice.
/// - `POST /v2/sync/purge`: delete the caller's own revision records of some tags (a replica's compaction).
/// - `POST /v2/sync/access`: the owner of a shared datastore's type sets what a member may write to it; from then
///   on the server refuses writes of the type by anyone but the owner and its read-write members (a read-only
///   member writes only its checkpoint records).
struct SyncRoutes {
    /// The plain-meta keys of a replicated type's records.
    typealias Key = ReplicatedType.PlainKey

    let store: any SyncStore
    let clock: ServerClock
    let authorization: Authorization
    let replicated: ReplicatedRecordRules
    let limits: ServerLimits

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.syncRevsDiff), use: revsDiff)
        routes.post(RouterPath(.syncBulk), use: bulk)
        routes.post(RouterPath(.syncPurge), use: purge)
        routes.post(RouterPath(.syncAccess), use: access)
        return routes
    }

    func revsDiff(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncRevsDiffRequest.self, request, context)
        let type = try requireType(body.type, limits)
        let missing = try await store.missingSyncTags(
            type: type,
            tags: try replicated.checkedTags(body.tags),
            readableBy: caller
        )
        var seen = Set<String>()
        let ordered = body.tags.filter { missing.contains($0) && seen.insert($0).inserted }
        return try json(SyncRevsDiffResponse(missing: ordered))
    }

    func purge(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncPurgeRequest.self, request, context)
        let type = try requireType(body.type, limits)
        let tags = try replicated.checkedTags(body.tags)
        return try json(
            SyncPurgeResponse(removed: try await store.deleteSyncRecords(type: type, tags: tags, writer: caller))
        )
    }

    func access(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncAccessRequest.self, request, context)
        let type = try requireType(body.type, limits)
        guard let member = ClientID(body.member)?.description else {
            throw ServerError.badRequest("member is a client ID")
        }
        try await replicated.authorization.setAccess(body.access, of: member, type: type, by: caller)
        return try json(SyncAccessResponse(access: body.access))
    }

    func bulk(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncBulkRequest.self, request, context)
        guard (1...limits.syncRecordsPerBulk).contains(body.records.count) else {
            throw ServerError.badRequest("a bulk write holds 1 to \(limits.syncRecordsPerBulk) records")
        }
        let now = clock.timestamp()
        var seen = Set<String>()
        let records = try body.records.map {
            write throws -> (record: StoredRecordText, tag: String, document: String) in
            let type = try authorization.requireNewRecord(write.meta, by: caller, limits: limits)
            guard let tag = write.meta.plain?[Key.revisionTag], ReplicatedRecordRules.isTag(tag) else {
                throw ServerError.badRequest("each record needs its revision tag in plain[\"\(Key.revisionTag)\"]")
            }
            guard let document = write.meta.plain?[Key.documentTag], ReplicatedRecordRules.isTag(document) else {
                throw ServerError.badRequest(
                    "each record needs its document tag in plain[\"\(Key.documentTag)\"]"
                )
            }
            guard seen.insert(type + "\u{0}" + tag).inserted else {
                throw ServerError.badRequest("a tag appears twice in one bulk write")
            }
            guard let data = write.data, !data.isEmpty else { throw ServerError.badRequest("data must not be empty") }
            try replicated.requireRecordSize(data)
            let record = StoredRecord.new(
                by: caller,
                type: type,
                plain: write.meta.plain ?? [:],
                data: data,
                recordSignature: write.recordSignature,
                now: now
            )
            return (StoredRecordText(record: record), tag, document)
        }
        for type in Set(records.map(\.record.record.type)) {
            try await replicated.authorization.requireWrite(type: type, caller: caller)
        }
        let outcomes = try await store.insertSyncRecords(
            records,
            maximumPerWriter: limits.syncRecordsPerWriterAndType,
            maximumPerDocument: limits.syncRevisionsPerDocument
        )
        for type in Set(records.map(\.record.record.type)) { context.noteWrite(of: type) }
        return try json(
            SyncBulkResponse(
                records: zip(records, outcomes).map {
                    SyncBulkResponse.Outcome(tag: $0.tag, recordID: $1.recordID, created: $1.created)
                }
            )
        )
    }
}
