// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A record's metadata as the server returns it (identical on every endpoint).
public struct RecordMeta: Codable, Sendable, Hashable {
    /// `record_id` in the JSON.
    public var recordID: String
    /// `writer_id` in the JSON.
    public var writerID: String
    /// `user_id` in the JSON.
    public var userID: String
    /// `type` in the JSON.
    public var type: String
    /// `plain` in the JSON.
    public var plain: [String: String]
    /// `created` in the JSON.
    public var created: Timestamp
    /// `last_modified` in the JSON.
    public var lastModified: Timestamp
    /// `version` in the JSON.
    public var version: String
    /// Only for file records; the key is left out otherwise (Java treats `null` as "this is a file").
    public var fileMeta: FileMeta?

    enum CodingKeys: String, CodingKey {
        case fileMeta = "file_meta"
        case recordID = "record_id"
        case writerID = "writer_id"
        case userID = "user_id"
        case type
        case plain
        case created
        case lastModified = "last_modified"
        case version
    }

    /// Creates record metadata.
    public init(
        recordID: String,
        writerID: String,
        userID: String,
        type: String,
        plain: [String: String],
        created: Timestamp,
        lastModified: Timestamp,
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

/// `{"meta": …, "data": {…}, "rec_sig": …}` as the server returns it.
public struct RecordResponse: Codable, Sendable, Hashable {
    /// `meta` in the JSON.
    public var meta: RecordMeta
    /// The field ciphertexts exactly as stored.
    public var data: [String: String]
    /// `rec_sig` in the JSON.
    public var recordSignature: String?

    enum CodingKeys: String, CodingKey {
        case meta
        case data
        case recordSignature = "rec_sig"
    }

    /// Creates a record response.
    public init(meta: RecordMeta, data: [String: String], recordSignature: String?) {
        self.meta = meta
        self.data = data
        self.recordSignature = recordSignature
    }
}

/// The body of a record write or update. The server takes only `writer_id`, `user_id`, `type`, `plain`, `data`
/// and `rec_sig`; any other meta the SDKs send is ignored.
public struct RecordWriteRequest: Codable, Sendable, Hashable {
    /// The client-supplied part of the meta.
    public struct Meta: Codable, Sendable, Hashable {
        /// `writer_id` in the JSON.
        public var writerID: String?
        /// `user_id` in the JSON.
        public var userID: String?
        /// `type` in the JSON.
        public var type: String?
        /// `plain` in the JSON.
        public var plain: [String: String]?

        enum CodingKeys: String, CodingKey {
            case writerID = "writer_id"
            case userID = "user_id"
            case type
            case plain
        }

        /// Creates write meta.
        public init(writerID: String?, userID: String?, type: String?, plain: [String: String]?) {
            self.writerID = writerID
            self.userID = userID
            self.type = type
            self.plain = plain
        }
    }

    /// `meta` in the JSON.
    public var meta: Meta
    /// `data` in the JSON.
    public var data: [String: String]?
    /// `rec_sig` in the JSON.
    public var recordSignature: String?

    enum CodingKeys: String, CodingKey {
        case meta
        case data
        case recordSignature = "rec_sig"
    }

    /// Creates a write request.
    public init(meta: Meta, data: [String: String]?, recordSignature: String? = nil) {
        self.meta = meta
        self.data = data
        self.recordSignature = recordSignature
    }
}
