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
    /// The most members (revoked ones included) one shared datastore's type has, and the most types one client owns.
    static let maximumMembers = 10_000
    static let maximumOwnedTypes = 100_000
    /// The most tags one revs_diff asks about.
    static let maximumTags = 1_000
    /// The most records one bulk write stores (the body is also bounded, at 16 MiB).
    static let maximumRecords = 500
    /// A tag's longest form: base64url of at most 64 bytes.
    static let maximumTagLength = 86
    /// The plain-meta keys of a replicated type's records.
    typealias Key = ReplicatedType.PlainKey

    let store: any SyncStore
    let clock: ServerClock
    let authorization: Authorization
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

    /// A tag: 1 to ``maximumTagLength`` base64url characters.
    static func isTag(_ text: String) -> Bool {
        (1...maximumTagLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            }
    }

    func revsDiff(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncRevsDiffRequest.self, request, context)
        let type = try requireType(body.type, limits)
        let missing = try await store.missingSyncTags(
            type: type,
            tags: try Self.checkedTags(body.tags),
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
        let tags = try Self.checkedTags(body.tags)
        return try json(
            SyncPurgeResponse(removed: try await store.deleteSyncRecords(type: type, tags: tags, writer: caller))
        )
    }

    func access(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncAccessRequest.self, request, context)
        let type = try requireType(body.type, limits)
        guard type.hasPrefix(ReplicatedType.prefix) else {
            throw ServerError.badRequest("only a replicated datastore's type (\(ReplicatedType.prefix)…) has members")
        }
        guard let member = UUID(uuidString: body.member)?.uuidString.lowercased() else {
            throw ServerError.badRequest("member is a client ID")
        }
        guard member != caller else { throw ServerError.badRequest("the owner's own access is not set") }
        guard ["read", "readWrite", "none"].contains(body.access) else {
            throw ServerError.badRequest("access is read, readWrite or none")
        }
        try await store.setSyncAccess(type: type, owner: caller, member: member, access: body.access)
        return try json(SyncAccessResponse(access: body.access))
    }

    /// 403 unless `caller` may write revision records of `type`: anyone to a type no owner has set access to;
    /// else the owner and its read-write members. Only a replicated datastore's type can have an owner, so a write
    /// of any other type costs no lookup.
    static func requireWriteAccess(
        _ store: any SyncStore,
        type: String,
        caller: String,
        isCheckpoint: Bool = false
    ) async throws {
        guard type.hasPrefix(ReplicatedType.prefix) else { return }
        switch try await store.syncWriteAccess(type: type, caller: caller) {
        case .open, .write: return
        case .checkpointsOnly where isCheckpoint: return
        case .checkpointsOnly:
            throw ServerError.forbidden("this client may only read that shared datastore")
        case .refused:
            throw ServerError.forbidden("this client is not (or no longer) a member of that shared datastore")
        }
    }

    /// For a v1 write of a record of a replicated type: 413 past ``ServerLimits/maximumRevisionRecordBytes``, 403
    /// unless `writer` may write it (a read-only member: its checkpoints only), 400 unless it is one of the type's bookkeeping records (exactly one of
    /// `ReplicatedType.PlainKey.bookkeeping` in its plain meta and no revision tag). Any other type passes. The
    /// writer's record count is checked where the record is stored
    /// (``SyncStore/insertReplicatedRecord(_:maximumPerWriter:maximumBytes:)``).
    static func requireBookkeeping(
        _ store: any SyncStore,
        type: String,
        plain: [String: String]?,
        data: [String: String],
        writer: String,
        limits: ServerLimits
    ) async throws {
        guard type.hasPrefix(ReplicatedType.prefix) else { return }
        try requireRecordSize(data, limits)
        let plain = plain ?? [:]
        try await requireWriteAccess(store, type: type, caller: writer, isCheckpoint: plain[Key.checkpoint] != nil)
        guard Key.bookkeeping.filter({ plain[$0] != nil }).count == 1, plain[Key.revisionTag] == nil else {
            throw ServerError.badRequest(
                "a replicated datastore's revisions are written through /v2/sync/bulk; a v1 record of its type is a "
                    + "checkpoint, membership change or purge marker"
            )
        }
    }

    /// For a file record of a replicated type (an attachment body): 403 unless `caller` may write to it, 400 without
    /// its content address, 413 past ``ServerLimits/maximumAttachmentBytes``. Any other type passes. The writer's
    /// record count and ``ServerLimits/syncAttachmentBytesPerType`` are checked where the record is stored
    /// (``SyncStore/insertReplicatedRecord(_:maximumPerWriter:maximumBytes:)``).
    static func requireAttachmentShape(
        _ store: any SyncStore,
        type: String,
        plain: [String: String]?,
        size: Int64,
        caller: String,
        limits: ServerLimits
    ) async throws {
        guard type.hasPrefix(ReplicatedType.prefix) else { return }
        try await requireWriteAccess(store, type: type, caller: caller)
        guard let plain, plain[Key.attachment] != nil, plain[Key.revisionTag] == nil else {
            throw ServerError.badRequest("a file of a replicated datastore's type is an attachment body (sr.a)")
        }
        guard size <= limits.maximumAttachmentBytes else {
            throw ServerError.tooLarge("an attachment is at most \(limits.maximumAttachmentBytes) bytes")
        }
    }

    /// Stores a record written through v1: a replicated type's through
    /// ``SyncStore/insertReplicatedRecord(_:maximumPerWriter:maximumBytes:)`` (its caps checked in the insert's
    /// transaction), any other type's through `records`.
    static func insert(
        _ record: StoredRecordText,
        records: any RecordStore,
        sync: any SyncStore,
        limits: ServerLimits
    ) async throws -> StoredRecordText {
        guard record.record.type.hasPrefix(ReplicatedType.prefix) else { return try await records.insertRecord(record) }
        return try await sync.insertReplicatedRecord(
            record,
            maximumPerWriter: limits.syncRecordsPerWriterAndType,
            maximumBytes: limits.syncAttachmentBytesPerType
        )
    }

    /// 413 when a replicated type's record data (keys and values) exceeds ``ServerLimits/maximumRevisionRecordBytes``:
    /// revisions, and the bookkeeping records written through v1 beside them (checkpoints, membership changes, purge
    /// markers), which reach every replica's pull just the same.
    static func requireRecordSize(_ data: [String: String], _ limits: ServerLimits) throws {
        var bytes = 0
        for (key, value) in data {
            bytes += key.utf8.count + value.utf8.count
            guard bytes <= limits.maximumRevisionRecordBytes else {
                throw ServerError(
                    .tooLarge,
                    "a replicated datastore's record data is at most \(limits.maximumRevisionRecordBytes) bytes"
                )
            }
        }
    }

    /// `tags` when there are at most ``maximumTags`` and each is a tag; else 400.
    static func checkedTags(_ tags: [String]) throws -> [String] {
        guard tags.count <= maximumTags else { throw ServerError.badRequest("at most \(maximumTags) tags per request") }
        guard tags.allSatisfy(isTag) else {
            throw ServerError.badRequest("a tag is 1 to \(maximumTagLength) base64url characters")
        }
        return tags
    }

    func bulk(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncBulkRequest.self, request, context)
        guard (1...Self.maximumRecords).contains(body.records.count) else {
            throw ServerError.badRequest("a bulk write holds 1 to \(Self.maximumRecords) records")
        }
        let now = clock.timestamp()
        var seen = Set<String>()
        let records = try body.records.map {
            write throws -> (record: StoredRecordText, tag: String, document: String) in
            let type = try authorization.requireNewRecord(write.meta, by: caller, limits: limits)
            guard let tag = write.meta.plain?[Key.revisionTag], Self.isTag(tag) else {
                throw ServerError.badRequest("each record needs its revision tag in plain[\"\(Key.revisionTag)\"]")
            }
            guard let document = write.meta.plain?[Key.documentTag], Self.isTag(document) else {
                throw ServerError.badRequest(
                    "each record needs its document tag in plain[\"\(Key.documentTag)\"]"
                )
            }
            guard seen.insert(type + "\u{0}" + tag).inserted else {
                throw ServerError.badRequest("a tag appears twice in one bulk write")
            }
            guard let data = write.data, !data.isEmpty else { throw ServerError.badRequest("data must not be empty") }
            try Self.requireRecordSize(data, limits)
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
            try await Self.requireWriteAccess(store, type: type, caller: caller)
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
