// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A policy body: `{"allow": [{"read": {}}]}`, `{"deny": [{"authorizer": {}}]}` and so on.
public struct PolicyRequest: Codable, Sendable, Hashable {
    /// One permission entry: `{"read": {}}` or `{"authorizer": {}}`.
    public struct Entry: Codable, Sendable, Hashable {
        public var read: [String: String]?
        public var authorizer: [String: String]?

        /// Creates an entry.
        public init(read: [String: String]? = nil, authorizer: [String: String]? = nil) {
            self.read = read
            self.authorizer = authorizer
        }
    }

    public var allow: [Entry]?
    public var deny: [Entry]?

    /// Creates a policy body.
    public init(allow: [Entry]? = nil, deny: [Entry]? = nil) {
        self.allow = allow
        self.deny = deny
    }
}

/// An entry of `GET /v1/storage/policy/outgoing`.
public struct OutgoingShare: Codable, Sendable, Hashable {
    public var readerID: String
    public var readerName: String?
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
    public var writerID: String
    public var writerName: String?
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
    public var authorizerID: String
    public var writerID: String
    public var userID: String
    public var recordType: String
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
