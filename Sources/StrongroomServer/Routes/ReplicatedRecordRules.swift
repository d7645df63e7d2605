// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomWire

/// What a record of a replicated datastore's type (`sr1.…`) must be, wherever it is written: revisions through
/// `POST /v2/sync/bulk`, bookkeeping records (checkpoints, membership changes, purge markers) through v1 record
/// writes, attachment bodies through v1 file writes. Records of any other type pass every check untouched. Who may
/// write is ``SyncAuthorization``'s to say; the shapes, sizes and where a record is stored are said here.
struct ReplicatedRecordRules: Sendable {
    /// A tag's longest form: base64url of at most 64 bytes.
    static let maximumTagLength = 86
    /// The plain-meta keys of a replicated type's records.
    typealias Key = ReplicatedType.PlainKey

    let authorization: SyncAuthorization
    let store: any SyncStore
    let limits: ServerLimits

    /// Whether `type` is a replicated datastore's.
    static func isReplicated(_ type: String) -> Bool { type.hasPrefix(ReplicatedType.prefix) }

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

    /// `tags` when there are at most ``ServerLimits/syncTagsPerRequest`` and each is a tag; else 400.
    func checkedTags(_ tags: [String]) throws -> [String] {
        guard tags.count <= limits.syncTagsPerRequest else {
            throw ServerError.badRequest("at most \(limits.syncTagsPerRequest) tags per request")
        }
        guard tags.allSatisfy(Self.isTag) else {
            throw ServerError.badRequest("a tag is 1 to \(Self.maximumTagLength) base64url characters")
        }
        return tags
    }

    /// For a v1 write of a record of a replicated type: 413 past ``ServerLimits/maximumRevisionRecordBytes``, 403
    /// unless `writer` may write it (a read-only member: its checkpoints only), 400 unless it is one of the type's
    /// bookkeeping records (exactly one of `ReplicatedType.PlainKey.bookkeeping` in its plain meta and no revision
    /// tag). The writer's record count is checked where the record is stored (``insert(_:records:)``).
    func requireBookkeeping(
        type: String,
        plain: [String: String]?,
        data: [String: String],
        writer: String
    ) async throws {
        guard Self.isReplicated(type) else { return }
        try requireRecordSize(data)
        let plain = plain ?? [:]
        try await authorization.requireWrite(type: type, caller: writer, isCheckpoint: plain[Key.checkpoint] != nil)
        guard Key.bookkeeping.filter({ plain[$0] != nil }).count == 1, plain[Key.revisionTag] == nil else {
            throw ServerError.badRequest(
                "a replicated datastore's revisions are written through /v2/sync/bulk; a v1 record of its type is a "
                    + "checkpoint, membership change or purge marker"
            )
        }
    }

    /// For a file record of a replicated type (an attachment body): 403 unless `caller` may write to it, 400 without
    /// its content address, 413 past ``ServerLimits/maximumAttachmentBytes``. The writer's record count and
    /// ``ServerLimits/syncAttachmentBytesPerType`` are checked where the record is stored.
    func requireAttachmentShape(type: String, plain: [String: String]?, size: Int64, caller: String) async throws {
        guard Self.isReplicated(type) else { return }
        try await authorization.requireWrite(type: type, caller: caller)
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
    func insert(_ record: StoredRecordText, records: any RecordStore) async throws -> StoredRecordText {
        guard Self.isReplicated(record.record.type) else { return try await records.insertRecord(record) }
        return try await store.insertReplicatedRecord(
            record,
            maximumPerWriter: limits.syncRecordsPerWriterAndType,
            maximumBytes: limits.syncAttachmentBytesPerType
        )
    }

    /// 413 when a replicated type's record data (keys and values) exceeds ``ServerLimits/maximumRevisionRecordBytes``:
    /// revisions, and the bookkeeping records written through v1 beside them (checkpoints, membership changes, purge
    /// markers), which reach every replica's pull just the same.
    func requireRecordSize(_ data: [String: String]) throws {
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
}
