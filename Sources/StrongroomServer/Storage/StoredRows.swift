// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomWire

/// A registered client as the server stores it: public keys and a hash of the API secret, nothing private.
public struct StoredClient: Sendable, Hashable {
    public var clientID: String
    public var name: String
    public var publicKey: PublicKeyObject
    public var signingKey: SigningKeyObject?
    public var apiKeyID: String
    /// SHA-256 of the API secret (the secret itself is never stored).
    public var apiSecretHash: String
    public var enabled: Bool
    public var created: Timestamp
    /// The registration token it was registered with (for the credential-backup call).
    public var registrationToken: String?
}

/// A record row: ciphertext only, plus the plaintext `plain` metadata the protocol puts in the clear.
public struct StoredRecord: Sendable, Hashable {
    public var index: Int64
    public var recordID: String
    public var writerID: String
    public var userID: String
    public var type: String
    public var plain: [String: String]
    public var data: [String: String]
    public var recordSignature: String?
    public var created: Timestamp
    public var lastModified: Timestamp
    public var version: String
    /// Present for file records.
    public var fileMeta: FileMeta?
    /// A file record whose upload has not been committed: invisible to reads and searches.
    public var isPending: Bool

    /// The wire form of the meta, identical on every endpoint.
    public var meta: RecordMeta {
        RecordMeta(
            recordID: recordID,
            writerID: writerID,
            userID: userID,
            type: type,
            plain: plain,
            created: created,
            lastModified: lastModified,
            version: version,
            fileMeta: fileMeta
        )
    }
}

/// An EAK slot `(writer, user, reader, type)`.
public struct StoredAccessKey: Sendable, Hashable {
    public var writerID: String
    public var userID: String
    public var readerID: String
    public var type: String
    public var eak: String
    public var authorizerID: String
}

/// The sharing flags of `(user, writer, reader, type)`.
public struct StoredPolicy: Sendable, Hashable {
    public var userID: String
    public var writerID: String
    public var readerID: String
    public var type: String
    public var canRead: Bool
    public var isAuthorizer: Bool
    public var authorizedBy: String?
}

/// A registration token (multi-use, optionally capped).
public struct StoredRegistrationToken: Sendable, Hashable {
    public var token: String
    public var name: String
    public var uses: Int
    public var maximumUses: Int?
    public var enabled: Bool

    /// Creates a token row.
    public init(token: String, name: String, uses: Int, maximumUses: Int?, enabled: Bool) {
        self.token = token
        self.name = name
        self.uses = uses
        self.maximumUses = maximumUses
        self.enabled = enabled
    }
}

/// What a version-checked update or delete found.
public enum VersionedOutcome<Value: Sendable>: Sendable {
    case done(Value)
    case conflict
    case notFound
}

/// Which records a search may see and the filters it applies.
public struct RecordQuery: Sendable, Hashable {
    public enum Scope: Sendable, Hashable {
        /// Only records the caller wrote.
        case writtenBy(String)
        /// The caller's own records plus records shared with it through an allow-read policy.
        case readableBy(String)
    }

    public var scope: Scope
    public var afterIndex: Int64
    public var limit: Int
    public var writerIDs: [String]
    public var userIDs: [String]
    public var recordIDs: [String]
    public var types: [String]
}

/// A note: its JSON exactly as the writer sent it (ciphertext, public keys, options), plus the server's fields.
public struct StoredNote: Sendable, Hashable {
    public var noteID: String
    /// Unique when set; nil for anonymous notes.
    public var idString: String?
    public var body: [String: JSONValue]
    public var created: Timestamp
    public var views: Int64
    /// -1 (or 0) for unlimited.
    public var maximumViews: Int64
    public var expiresAt: Timestamp?
    public var recipientSigningKey: String
}
