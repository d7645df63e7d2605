// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The bounds every revision record is checked against before anything is derived from it, so a hostile server
/// cannot make a client do unbounded work or store unbounded data. They match the datastore's own limits.
public enum ReplicationLimits {
    /// The longest document ID, in UTF-8 bytes.
    public static let maximumDocumentIDBytes = 512
    /// The most revision IDs in a record's ancestry.
    public static let maximumAncestry = 1_000
    /// The largest body, in bytes of canonical JSON.
    public static let maximumBodyBytes = 1 << 20
    /// The largest attachment map, in bytes of JSON.
    public static let maximumAttachmentBytes = 64 << 10
    /// The most attachments one revision carries.
    public static let maximumAttachments = 100
    /// The longest datastore name, in UTF-8 bytes.
    public static let maximumNameBytes = 256
    /// The most revision IDs one purge marker names (a larger tree is purged with several markers).
    public static let maximumPurgedRevisions = 1_000
    /// The longest revision ID: a generation of at most 10 digits, `-`, and at most 64 letters or digits.
    public static let maximumRevisionIDBytes = 75
}
