// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A policy body: `{"allow": [{"read": {}}]}`, `{"deny": [{"authorizer": {}}]}` and so on.
public struct PolicyRequest: Codable, Sendable, Hashable {
    /// One permission entry: `{"read": {}}` or `{"authorizer": {}}`.
    public struct Entry: Codable, Sendable, Hashable {
        /// `read` in the JSON.
        public var read: [String: String]?
        /// `authorizer` in the JSON.
        public var authorizer: [String: String]?

        /// Creates an entry.
        public init(read: [String: String]? = nil, authorizer: [String: String]? = nil) {
            self.read = read
            self.authorizer = authorizer
        }
    }

    /// `allow` in the JSON.
    public var allow: [Entry]?
    /// `deny` in the JSON.
    public var deny: [Entry]?

    /// Creates a policy body.
    public init(allow: [Entry]? = nil, deny: [Entry]? = nil) {
        self.allow = allow
        self.deny = deny
    }
}

/// An entry of `GET /v1/storage/policy/outgoing`.
public struct OutgoingShare: Codable, Sendable, Hashable {
    /// `reader_id` in the JSON.
    public var readerID: String
    /// `reader_name` in the JSON.
    public var readerName: String?
    /// `record_type` in the JSON.
    public var recordType: String

    enum CodingKeys: String, CodingKey {
        case readerID = "reader_id"
        case readerName = "reader_name"
        case recordType = "record_type"
    }

    /// Creates an entry.
    public init(readerID: String, readerName: String?, recordType: String) {
        self.readerID = readerID
        self.readerName = readerName
        self.recordType = recordType
    }
}

/// An entry of `GET /v1/storage/policy/incoming`.
public struct IncomingShare: Codable, Sendable, Hashable {
    /// `writer_id` in the JSON.
    public var writerID: String
    /// `writer_name` in the JSON.
    public var writerName: String?
    /// `record_type` in the JSON.
    public var recordType: String

    enum CodingKeys: String, CodingKey {
        case writerID = "writer_id"
        case writerName = "writer_name"
        case recordType = "record_type"
    }

    /// Creates an entry.
    public init(writerID: String, writerName: String?, recordType: String) {
        self.writerID = writerID
        self.writerName = writerName
        self.recordType = recordType
    }
}

/// An entry of `GET /v1/storage/policy/proxies` and `…/granted`.
public struct AuthorizerGrant: Codable, Sendable, Hashable {
    /// `authorizer_id` in the JSON.
    public var authorizerID: String
    /// `writer_id` in the JSON.
    public var writerID: String
    /// `user_id` in the JSON.
    public var userID: String
    /// `record_type` in the JSON.
    public var recordType: String
    /// `authorized_by` in the JSON.
    public var authorizedBy: String

    enum CodingKeys: String, CodingKey {
        case authorizerID = "authorizer_id"
        case writerID = "writer_id"
        case userID = "user_id"
        case recordType = "record_type"
        case authorizedBy = "authorized_by"
    }

    /// Creates an entry.
    public init(authorizerID: String, writerID: String, userID: String, recordType: String, authorizedBy: String) {
        self.authorizerID = authorizerID
        self.writerID = writerID
        self.userID = userID
        self.recordType = recordType
        self.authorizedBy = authorizedBy
    }
}
