// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One entry of the changes feed: a document that changed after a given sequence (CDTDatastore's `CDTFetchChanges`
/// delivers the same), with its winning revision and every leaf.
public struct DocumentChange: Sendable, Hashable {
    /// The sequence of the document's latest change; pass the last one seen as `since` to continue.
    public let sequence: Int64
    /// The document's ID.
    public let docID: String
    /// The winning revision's ID.
    public let revID: String
    /// Whether the winning revision is a tombstone (the document is deleted).
    public let isDeleted: Bool
    /// Every leaf revision ID, winner first: more than one live leaf means the document is conflicted.
    public let leafRevIDs: [String]
}

/// A page of the changes feed.
public struct ChangesPage: Sendable, Hashable {
    /// The changes, in sequence order, one per document.
    public let changes: [DocumentChange]
    /// The sequence to pass as `since` for the next page: the last change's, or the `since` given when empty.
    public let lastSequence: Int64
}
