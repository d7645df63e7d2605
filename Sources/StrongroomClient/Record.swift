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
    /// What a file record holds (its ``Record/data`` is empty then); nil for other records, as e3db-swift's
    /// `Meta.fileMeta`.
    public var fileMeta: FileMeta?

    /// A file record's file: size, checksum, compression and name, as the server keeps them (about the encrypted
    /// file; nothing here is secret).
    public struct FileMeta: Sendable, Hashable {
        /// The encrypted file's size in bytes.
        public var size: Int64
        /// The encrypted file's MD5, standard base64, as a `Content-MD5` header carries it.
        public var checksum: String
        /// Always `raw` in the official SDKs.
        public var compression: String
        /// The file name the writer gave, or one the server made up.
        public var fileName: String?

        /// Creates file metadata.
        public init(size: Int64, checksum: String, compression: String = "raw", fileName: String? = nil) {
            self.size = size
            self.checksum = checksum
            self.compression = compression
            self.fileName = fileName
        }
    }

    /// Creates metadata.
    public init(
        recordID: UUID,
        writerID: UUID,
        userID: UUID,
        type: String,
        plain: [String: String],
        created: Date,
        lastModified: Date,
        version: String,
        fileMeta: FileMeta? = nil
    ) {
        self.recordID = recordID
        self.writerID = writerID
        self.userID = userID
        self.type = type
        self.plain = plain
        self.created = created
        self.lastModified = lastModified
        self.version = version
        self.fileMeta = fileMeta
    }
}
