// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire

/// Records: write, read, version-checked update and delete, and v1 search.
struct RecordRoutes {
    let store: any RecordStore
    /// Shared datastores' write access (a revoked member's v1 writes of the type are refused too).
    /// What a replicated datastore's records must be, and who may write them.
    let replicated: ReplicatedRecordRules
    let clock: ServerClock
    let authorization: Authorization
    let results: RecordResults
    let blobs: any BlobStore
    let limits: ServerLimits
    let fence: KeyGenerationFence

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.records), use: write)
        routes.get(RouterPath(.record), use: read)
        routes.delete(RouterPath(.record), use: deleteUnconditionally)
        routes.put(RouterPath(.recordVersion), use: update)
        routes.delete(RouterPath(.recordVersion), use: delete)
        routes.post(RouterPath(.search), use: search)
        return routes
    }

    /// `POST /v1/storage/records` → 201 with the stored record.
    func write(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(RecordWriteRequest.self, request, context)
        let type = try authorization.requireNewRecord(body.meta, by: caller, limits: limits)
        guard let data = body.data, !data.isEmpty else { throw ServerError.badRequest("data must not be empty") }
        try await replicated.requireBookkeeping(type: type, plain: body.meta.plain, data: data, writer: caller)
        let generation = try KeyGenerationFence.sent(in: request)
        let scope = AccessKeyScope(writerID: caller, userID: caller, type: type)
        try await fence.require(generation, of: scope)
        let record = StoredRecordText(
            record: .new(
                by: caller,
                type: type,
                plain: body.meta.plain ?? [:],
                data: data,
                recordSignature: body.recordSignature,
                now: clock.timestamp()
            )
        )
        let stored = try await replicated.insert(record, records: store)
        try await fence.settle(generation, of: scope, stored: stored.record, in: store)
        context.noteWrite(of: type)
        return recordJSON(stored, status: .created)
    }

    /// `GET /v1/storage/records/{id}` (optionally `?field=a&field=b`).
    func read(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        guard let stored = try await store.recordText(id: try context.recordID("id")), !stored.record.isPending else {
            throw ServerError.notFound("no such record")
        }
        let record = stored.record
        guard try await authorization.mayRead(record, caller: caller) else {
            throw ServerError.forbidden("not shared with you")
        }
        let fields = request.uri.queryParameters.getAll("field").map { $0.removingPercentEncoding ?? $0 }
        guard fields.isEmpty else {
            let data = try stored.decodedData().filter { fields.contains($0.key) }
            return try json(RecordResponse(meta: record.meta, data: data, recordSignature: record.recordSignature))
        }
        return recordJSON(stored)
    }

    /// `PUT /v1/storage/records/safe/{id}/{version}` → 200, or 409 for a stale version.
    func update(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        let version = try context.segment("version")
        let body = try await decodeBody(RecordWriteRequest.self, request, context)
        guard let existing = try await store.record(id: recordID), !existing.isPending else {
            throw ServerError.notFound("no such record")
        }
        try authorization.requireWriter(of: existing, caller: caller, "update")
        guard let data = body.data, !data.isEmpty else { throw ServerError.badRequest("data must not be empty") }
        let isCheckpoint =
            existing.plain[ReplicatedType.PlainKey.checkpoint] != nil
            && body.meta.plain?[ReplicatedType.PlainKey.checkpoint] != nil
        try await replicated.authorization.requireWrite(type: existing.type, caller: caller, isCheckpoint: isCheckpoint)
        // Of a replicated type only a replica's checkpoint changes in place: a revision record rewritten would
        // escape its document's count and reach replicas as another revision.
        guard isCheckpoint || !ReplicatedRecordRules.isReplicated(existing.type) else {
            throw ServerError.badRequest("of a replicated datastore's records only a checkpoint is updated in place")
        }
        if ReplicatedRecordRules.isReplicated(existing.type) { try replicated.requireRecordSize(data) }
        try requirePlain(body.meta.plain, limits)
        // An update needs no check after it: a rotation's re-wrap changes every record's version, so an update
        // sealed under the old key either loses to it (409) or is read again and re-wrapped by it.
        try await fence.require(
            try KeyGenerationFence.sent(in: request),
            of: AccessKeyScope(writerID: existing.writerID, userID: existing.userID, type: existing.type)
        )
        let outcome = try await store.updateRecord(
            id: recordID,
            expectedVersion: version,
            with: RecordUpdate(
                newVersion: SecureRandom.uuid().uuidString.lowercased(),
                plain: body.meta.plain ?? [:],
                data: data,
                recordSignature: body.recordSignature,
                lastModified: clock.timestamp()
            )
        )
        switch outcome {
        case .done(let record):
            return try json(
                RecordResponse(meta: record.meta, data: record.data, recordSignature: record.recordSignature)
            )
        case .conflict:
            throw ServerError.conflict("the record has changed since version \(version)")
        case .notFound:
            throw ServerError.notFound("no such record")
        }
    }

    /// `DELETE /v1/storage/records/safe/{id}/{version}` → 204, 409 for a stale version, 403 when not yours or
    /// unknown (as the real service answers).
    func delete(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        let version = try context.segment("version")
        try await delete(id: recordID, version: version, caller: caller)
        return empty(.noContent)
    }

    /// `DELETE /v1/storage/records/{id}` (the Go SDK's unconditional delete).
    func deleteUnconditionally(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        guard let existing = try await store.record(id: recordID) else {
            throw ServerError.forbidden("not your record")
        }
        try await delete(id: recordID, version: existing.version, caller: caller)
        return empty(.noContent)
    }

    private func delete(id: RecordID, version: String, caller: String) async throws {
        guard let existing = try await store.record(id: id), authorization.mayChange(existing, caller: caller) else {
            throw ServerError.forbidden("not your record")
        }
        switch try await store.deleteRecord(id: id, expectedVersion: version) {
        case .done:
            // The record is gone either way; a body that could not be removed now is unreachable, not visible.
            if existing.fileMeta != nil { try? await blobs.remove(id: id.description) }
            return
        case .conflict: throw ServerError.conflict("the record has changed since version \(version)")
        case .notFound: throw ServerError.forbidden("not your record")
        }
    }

    /// `POST /v1/storage/search`.
    func search(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SearchRequest.self, request, context)
        let count = body.count ?? 50
        let afterIndex = body.afterIndex ?? 0
        guard afterIndex >= 0 else { throw ServerError.badRequest("after_index must not be negative") }
        guard (1...1000).contains(count) else { throw ServerError.badRequest("count must be 1 to 1000") }
        func ids(_ values: [String]?) throws -> [String] {
            try (values ?? []).map {
                guard let id = canonicalUUID($0) else { throw ServerError.badRequest("not a UUID in an ID filter") }
                return id
            }
        }
        let writerIDs = try ids(body.writerIDs)
        let scope: RecordQuery.Scope =
            (!writerIDs.isEmpty || body.includeAllWriters == true) ? .readableBy(caller) : .writtenBy(caller)
        var query = RecordQuery(
            scope: scope,
            afterIndex: afterIndex,
            limit: body.plain == nil ? count : max(count, 200),
            writerIDs: writerIDs,
            userIDs: try ids(body.userIDs),
            recordIDs: try ids(body.recordIDs),
            types: body.contentTypes ?? [],
            includesData: false
        )
        var matches: [StoredRecord] = []
        // The plain filter runs here, so keep fetching until a page is full or the records run out.
        while matches.count < count {
            let batch = try await store.records(matching: query)
            for record in batch where body.plain?.matches(record.plain) ?? true {
                matches.append(record)
                if matches.count == count { break }
            }
            guard batch.count == query.limit, let last = batch.last else { break }
            query.afterIndex = last.index
        }
        let includeData = body.includeData ?? false
        let page = includeData ? try await results.withData(matches) : matches
        let hits = try await results.searchResults(for: page, caller: caller, includeData: includeData)
        return try jsonText(SearchResponse(results: hits, lastIndex: page.last?.index ?? afterIndex).jsonText())
    }
}
