// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// A purge marker: the E3DB record that tells every replica to forget revisions of one document, as if they had
/// never been written (``Replicator/purge(_:)`` writes it).
///
/// Its encrypted fields are `doc` (the document ID) and `revs` (a JSON array of the revision IDs purged — every
/// revision the purging replica held, at most ``ReplicationLimits/maximumPurgedRevisions``); its plain meta holds only
/// `sr.v` (the format version, `1`) and `sr.p` (the document's blind tag, as `sr.d` of its revisions). Signed by its
/// writer like every replicated record. A replica that pulls it removes the listed leaves and every ancestor left
/// without children — a revision written where the purge was not yet known survives, with its ancestors — and notes
/// the listed revisions so that a replica which had not heard of the purge and sends them again does not bring them
/// back.
public struct PurgeRecord: Sendable, Hashable {
    /// The document ID.
    public var docID: String
    /// The revision IDs purged.
    public var revIDs: [String]

    /// A purge marker, checked against ``ReplicationLimits``.
    ///
    /// - Throws: ``SyncError/Code/invalidRecord`` for a document ID out of bounds, no revisions or too many, or a
    ///   malformed revision ID.
    public init(docID: String, revIDs: [String]) throws(SyncError) {
        (self.docID, self.revIDs) = (docID, revIDs)
        guard (1...ReplicationLimits.maximumDocumentIDBytes).contains(docID.utf8.count) else {
            throw SyncError(.invalidRecord, "a document ID is 1 to \(ReplicationLimits.maximumDocumentIDBytes) bytes")
        }
        guard (1...ReplicationLimits.maximumPurgedRevisions).contains(revIDs.count) else {
            throw SyncError(.invalidRecord, "a purge marker names 1 to 1,000 revisions")
        }
        for revID in revIDs { _ = try RevisionAncestry.generation(of: revID) }
    }

    /// The fields to encrypt into the record's data.
    public var fields: [String: String] {
        [
            RevisionRecord.FieldName.documentID: docID,
            RevisionRecord.FieldName.purgedRevisions: RevisionAncestry.json(revIDs),
        ]
    }

    /// The record's plain meta: the format version and the document's blind tag.
    public func plain(tags: RevisionTagKey) -> [String: String] {
        [
            RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
            RevisionRecord.PlainKey.purge: tags.documentTag(docID),
        ]
    }

    /// Reads a pulled marker from its decrypted `fields` and its `plain` meta, verifying that its tag is that of the
    /// document it names.
    ///
    /// - Throws: ``SyncError/Code/unsupportedVersion``, ``SyncError/Code/invalidRecord`` (checked before any
    ///   parsing or hashing), ``SyncError/Code/tampered``.
    public init(fields: [String: String], plain: [String: String], tags: RevisionTagKey) throws(SyncError) {
        guard let version = plain[RevisionRecord.PlainKey.version] else {
            throw SyncError(.invalidRecord, "the record has no format version")
        }
        guard version == RevisionRecord.formatVersion else {
            throw SyncError(.unsupportedVersion, "purge marker format \(version.prefix(16)) is not known here")
        }
        guard let docID = fields[RevisionRecord.FieldName.documentID],
            let revisions = fields[RevisionRecord.FieldName.purgedRevisions]
        else { throw SyncError(.invalidRecord, "the purge marker has no doc or revs field") }
        guard
            revisions.utf8.count <= ReplicationLimits.maximumPurgedRevisions
                * (ReplicationLimits.maximumRevisionIDBytes + 3) + 2
        else { throw SyncError(.invalidRecord, "the purge marker names too many revisions") }
        try self.init(docID: docID, revIDs: try RevisionAncestry.parse(revisions))
        guard let tag = plain[RevisionRecord.PlainKey.purge], ConstantTime.equals(tag, tags.documentTag(docID)) else {
            throw SyncError(.tampered, "the purge marker's tag is not that of the document it names")
        }
    }
}
