// Strongroom — SPDX-License-Identifier: Apache-2.0

import StrongroomCore
import StrongroomWire

/// One revision of one document as a replicated E3DB record: what its encrypted fields and its plain meta hold.
///
/// The encrypted fields are `doc` (the document ID), `rev` (the revision ID), `ancestry` (a JSON array of revision
/// IDs from this one towards the root), `deleted` (`0` or `1`), `body` (the canonical JSON body, `{}` for a
/// tombstone) and `att` (a JSON object of attachment references, `{}` when there are none). The plain meta holds only
/// `sr.v` (the format version, `1`), `sr.d` (the document's blind tag) and `sr.r` (the revision's blind tag).
///
/// ``init(fields:plain:tags:)`` is how a pulled record is read: it checks every bound before any other work and
/// refuses a record whose tags are not those of the IDs it holds (``SyncError/Code/tampered``) — one swapped between
/// documents or replayed under another tag.
public struct RevisionRecord: Sendable, Hashable {
    /// The format version this build writes and reads.
    public static let formatVersion = "1"

    /// The plain-meta keys (the only plaintext a revision record has).
    public enum PlainKey {
        public static let version = ReplicatedType.PlainKey.version
        public static let documentTag = ReplicatedType.PlainKey.documentTag
        public static let revisionTag = ReplicatedType.PlainKey.revisionTag
        /// On a replica's checkpoint record instead of the tags: a random ID of that record (not a revision).
        public static let checkpoint = ReplicatedType.PlainKey.checkpoint
        /// On an attachment body's file record instead of the tags: its content address (not a revision).
        public static let attachment = ReplicatedType.PlainKey.attachment
        /// On a membership change (written by the datastore's owner) instead of the tags: a random ID.
        public static let membership = ReplicatedType.PlainKey.membership
        /// On a purge marker instead of the tags: the purged document's tag (``PurgeRecord``).
        public static let purge = ReplicatedType.PlainKey.purge
    }

    /// The encrypted field names.
    public enum FieldName {
        public static let documentID = "doc"
        public static let revisionID = "rev"
        public static let ancestry = "ancestry"
        public static let deleted = "deleted"
        public static let body = "body"
        public static let attachments = "att"
        /// A purge marker's purged revision IDs (a JSON array).
        public static let purgedRevisions = "revs"
    }

    /// The document ID.
    public var docID: String
    /// The revision ID, `N-hash`.
    public var revID: String
    /// Revision IDs from this one (first) towards the root, consecutive generations; possibly cut short of the root.
    public var ancestry: [String]
    /// Whether this revision is a tombstone.
    public var isDeleted: Bool
    /// The body as canonical JSON text (`{}` for a tombstone).
    public var body: String
    /// Attachment references as JSON text (`{}` when there are none).
    public var attachments: String

    /// A revision record, checked against ``ReplicationLimits``.
    ///
    /// - Throws: ``SyncError/Code/invalidRecord`` when a bound is exceeded, a revision ID is malformed, or the
    ///   ancestry does not start at `revID` and descend one generation at a time.
    public init(
        docID: String,
        revID: String,
        ancestry: [String],
        isDeleted: Bool,
        body: String,
        attachments: String = "{}"
    ) throws(SyncError) {
        (self.docID, self.revID, self.ancestry) = (docID, revID, ancestry)
        (self.isDeleted, self.body, self.attachments) = (isDeleted, body, attachments)
        try validate()
    }

    /// The fields to encrypt into the record's data.
    public var fields: [String: String] {
        [
            FieldName.documentID: docID,
            FieldName.revisionID: revID,
            FieldName.ancestry: RevisionAncestry.json(ancestry),
            FieldName.deleted: isDeleted ? "1" : "0",
            FieldName.body: body,
            FieldName.attachments: attachments,
        ]
    }

    /// The record's plain meta: the format version and the two blind tags.
    public func plain(tags: RevisionTagKey) -> [String: String] {
        [
            PlainKey.version: Self.formatVersion,
            PlainKey.documentTag: tags.documentTag(docID),
            PlainKey.revisionTag: tags.revisionTag(docID: docID, revID: revID),
        ]
    }

    /// Reads a pulled record from its decrypted `fields` and its `plain` meta, verifying that its tags are those of
    /// the document and revision it holds.
    ///
    /// - Throws: ``SyncError/Code/unsupportedVersion``, ``SyncError/Code/invalidRecord`` (checked before any
    ///   hashing), ``SyncError/Code/tampered``.
    public init(fields: [String: String], plain: [String: String], tags: RevisionTagKey) throws(SyncError) {
        guard let version = plain[PlainKey.version] else {
            throw SyncError(.invalidRecord, "the record has no format version")
        }
        guard version == Self.formatVersion else {
            throw SyncError(.unsupportedVersion, "revision record format \(version.prefix(16)) is not known here")
        }
        func field(_ name: String) throws(SyncError) -> String {
            guard let value = fields[name] else { throw SyncError(.invalidRecord, "the record has no \(name) field") }
            return value
        }
        let deleted = try field(FieldName.deleted)
        guard deleted == "0" || deleted == "1" else {
            throw SyncError(.invalidRecord, "the deleted field is neither 0 nor 1")
        }
        let ancestryText = try field(FieldName.ancestry)
        // The ancestry's text is bounded before it is parsed: 1,000 IDs of at most 75 bytes, quoted, with commas.
        guard
            ancestryText.utf8.count <= ReplicationLimits.maximumAncestry
                * (ReplicationLimits.maximumRevisionIDBytes + 3) + 2
        else { throw SyncError(.invalidRecord, "the ancestry is too long") }
        try self.init(
            docID: try field(FieldName.documentID),
            revID: try field(FieldName.revisionID),
            ancestry: try RevisionAncestry.parse(ancestryText),
            isDeleted: deleted == "1",
            body: try field(FieldName.body),
            attachments: try field(FieldName.attachments)
        )
        let expected = self.plain(tags: tags)
        guard let documentTag = plain[PlainKey.documentTag], let revisionTag = plain[PlainKey.revisionTag],
            ConstantTime.equals(documentTag, expected[PlainKey.documentTag] ?? ""),
            ConstantTime.equals(revisionTag, expected[PlainKey.revisionTag] ?? "")
        else {
            throw SyncError(.tampered, "the record's tags are not those of the revision it holds")
        }
    }

    private func validate() throws(SyncError) {
        let idBytes = docID.utf8.count
        guard (1...ReplicationLimits.maximumDocumentIDBytes).contains(idBytes) else {
            throw SyncError(.invalidRecord, "a document ID is 1 to \(ReplicationLimits.maximumDocumentIDBytes) bytes")
        }
        guard body.utf8.count <= ReplicationLimits.maximumBodyBytes, body.utf8.first == UInt8(ascii: "{") else {
            throw SyncError(.invalidRecord, "the body is not a JSON object of at most 1 MiB")
        }
        guard attachments.utf8.count <= ReplicationLimits.maximumAttachmentBytes,
            attachments.utf8.first == UInt8(ascii: "{")
        else {
            throw SyncError(.invalidRecord, "the attachment references are not a JSON object of at most 64 KiB")
        }
        guard (1...ReplicationLimits.maximumAncestry).contains(ancestry.count), ancestry.first == revID else {
            throw SyncError(.invalidRecord, "the ancestry must start at the revision and hold 1 to 1,000 IDs")
        }
        var expected: Int? = nil
        for revision in ancestry {
            let generation = try RevisionAncestry.generation(of: revision)
            if let expected, generation != expected {
                throw SyncError(.invalidRecord, "the ancestry skips or repeats a generation")
            }
            expected = generation - 1
        }
    }
}
