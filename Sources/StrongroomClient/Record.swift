// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// A decrypted record: its metadata and its plaintext fields.
public struct Record: Sendable, Hashable {
    /// The record's metadata (never encrypted).
    public var meta: Meta
    /// The decrypted field values.
    public var data: [String: String]

    /// Pairs metadata and plaintext.
    public init(meta: Meta, data: [String: String]) {
        self.meta = meta
        self.data = data
    }
}

/// A record's metadata, as e3db-swift's `Meta`.
public struct Meta: Sendable, Hashable {
    /// The record's ID.
    public var recordID: UUID
    /// The client that wrote it.
    public var writerID: UUID
    /// The client it is about (the writer, in every official SDK).
    public var userID: UUID
    /// The record type.
    public var type: String
    /// Plaintext metadata, visible to the server (searchable).
    public var plain: [String: String]
    /// When it was written.
    public var created: Date
    /// When it last changed.
    public var lastModified: Date
    /// The version to pass to updates and deletes (optimistic concurrency).
    public var version: String

    /// Creates metadata.
    public init(
        recordID: UUID,
        writerID: UUID,
        userID: UUID,
        type: String,
        plain: [String: String],
        created: Date,
        lastModified: Date,
        version: String
    ) {
        self.recordID = recordID
        self.writerID = writerID
        self.userID = userID
        self.type = type
        self.plain = plain
        self.created = created
        self.lastModified = lastModified
        self.version = version
    }
}
