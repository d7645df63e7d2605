// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `file_meta` of a file record.
public struct FileMeta: Codable, Sendable, Hashable {
    /// Standard base64 (padded) MD5 of the encrypted file, as a `Content-MD5` header carries it.
    public var checksum: String
    /// Always `"raw"` in the SDKs.
    public var compression: String
    /// The encrypted size in bytes.
    public var size: Int64
    /// A presigned download URL (only in `GET /v1/storage/files/{id}`), else `null`.
    public var fileURL: String?
    /// The client's file name, or one the server made up.
    public var fileName: String?

    enum CodingKeys: String, CodingKey {
        case checksum
        case compression
        case size
        case fileURL = "file_url"
        case fileName = "file_name"
    }

    /// Creates file metadata.
    public init(checksum: String, compression: String, size: Int64, fileURL: String? = nil, fileName: String? = nil) {
        self.checksum = checksum
        self.compression = compression
        self.size = size
        self.fileURL = fileURL
        self.fileName = fileName
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checksum, forKey: .checksum)
        try container.encode(compression, forKey: .compression)
        try container.encode(size, forKey: .size)
        try container.encode(fileURL, forKey: .fileURL)  // the Python SDK indexes both keys
        try container.encode(fileName, forKey: .fileName)
    }
}

/// `POST /v1/storage/files` body.
public struct FileWriteRequest: Codable, Sendable, Hashable {
    /// The client-supplied meta of a file record.
    public struct Meta: Codable, Sendable, Hashable {
        /// `writer_id` in the JSON.
        public var writerID: String?
        /// `user_id` in the JSON.
        public var userID: String?
        /// `type` in the JSON.
        public var type: String?
        /// `plain` in the JSON.
        public var plain: [String: String]?
        /// `file_meta` in the JSON.
        public var fileMeta: FileMeta?

        enum CodingKeys: String, CodingKey {
            case writerID = "writer_id"
            case userID = "user_id"
            case type
            case plain
            case fileMeta = "file_meta"
        }

        /// Creates file write meta.
        public init(writerID: String?, userID: String?, type: String?, plain: [String: String]?, fileMeta: FileMeta?) {
            self.writerID = writerID
            self.userID = userID
            self.type = type
            self.plain = plain
            self.fileMeta = fileMeta
        }
    }

    /// `meta` in the JSON.
    public var meta: Meta

    /// Creates a file write request.
    public init(meta: Meta) { self.meta = meta }
}

/// The 202 answer to `POST /v1/storage/files`: the pending record and where to PUT the ciphertext.
public struct PendingFileResponse: Codable, Sendable, Hashable {
    /// `id` in the JSON.
    public var id: String
    /// `file_url` in the JSON.
    public var fileURL: String

    enum CodingKeys: String, CodingKey {
        case id
        case fileURL = "file_url"
    }

    /// Creates the answer.
    public init(id: String, fileURL: String) {
        self.id = id
        self.fileURL = fileURL
    }
}
