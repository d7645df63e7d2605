// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A saved attachment of a revision (CDTDatastore's `CDTSavedAttachment`): its metadata. Read the content with
/// ``Datastore/attachmentContents(named:of:)`` or ``Datastore/readAttachment(named:of:to:progress:)``.
public struct Attachment: Sendable, Hashable {
    /// The attachment's name, unique within a revision.
    public let name: String
    /// Its MIME type, such as `image/jpeg`.
    public let contentType: String
    /// Its length in bytes.
    public let length: Int64
    /// `sha256-<base64>` of the content, checked on every read.
    public let digest: String
    /// The generation of the revision that added this content; children carry it forward unchanged.
    public let revpos: Int
}

extension Attachment {
    /// An attachment as a replicator received its metadata (package API for `StrongroomSync`).
    package init(replicatedName name: String, contentType: String, length: Int64, digest: String, revpos: Int) {
        self.init(name: name, contentType: contentType, length: length, digest: digest, revpos: revpos)
    }
}
