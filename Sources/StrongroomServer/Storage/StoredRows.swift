// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore
public import StrongroomWire

/// A registered client as the server stores it: public keys and a hash of the API secret, nothing private.
public struct StoredClient: Sendable, Hashable {
    /// The client ID (lowercase UUID).
    public var clientID: String
    /// The display name.
    public var name: String
    /// The encryption public key, as registered.
    public var publicKey: PublicKeyObject
    /// The signing public key, if one was registered.
    public var signingKey: SigningKeyObject?
    /// The API key ID (public half of the credentials).
    public var apiKeyID: String
    /// SHA-256 of the API secret (the secret itself is never stored).
    public var apiSecretHash: String
    /// Whether it may authenticate.
    public var enabled: Bool
    /// When it was created.
    public var created: Timestamp
    /// The registration token it was registered with (for the credential-backup call).
    public var registrationToken: String?
}

/// A record row: ciphertext only, plus the plaintext `plain` metadata the protocol puts in the clear.
public struct StoredRecord: Sendable, Hashable {
    /// The search index (increasing; `last_index` in v1 search).
    public var index: Int64
    /// The record ID (lowercase UUID).
    public var recordID: String
    /// The writer (lowercase UUID).
    public var writerID: String
    /// The user (lowercase UUID).
    public var userID: String
    /// The record type.
    public var type: String
    /// The plaintext metadata, visible to the server by design.
    public var plain: [String: String]
    /// The field ciphertexts (`{}` for files).
    public var data: [String: String]
    /// The optional `rec_sig` a client attached.
    public var recordSignature: String?
    /// When it was created.
    public var created: Timestamp
    /// When it last changed.
    public var lastModified: Timestamp
    /// The version, new on every update.
    public var version: String
    /// Present for file records.
    public var fileMeta: FileMeta?
    /// A file record whose upload has not been committed: invisible to reads and searches.
    public var isPending: Bool
    /// The ciphertext's size in bytes (`data` and `rec_sig`), filled when a query reads metadata only.
    public var dataSize: Int = 0

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

/// A record as a single read answers it: the row, with its field ciphertexts left as the JSON object text the
/// store keeps, so the answer can carry them without decoding and encoding every ciphertext again.
public struct StoredRecordText: Sendable, Hashable {
    /// The row; its `data` is empty.
    public var record: StoredRecord
    /// The field ciphertexts as stored: a JSON object of strings, written by this server.
    public var dataJSON: String

    /// A record (its `data` moved into `dataJSON`) and its data as the store keeps it.
    public init(record: StoredRecord) {
        self.dataJSON = encodeStringMap(record.data)
        self.record = record
        self.record.data = [:]
    }

    /// A row read with its data as text.
    init(record: StoredRecord, dataJSON: String) {
        self.record = record
        self.dataJSON = dataJSON
    }

    /// The field ciphertexts, decoded.
    public func decodedData() throws -> [String: String] {
        try decodeStringMap(dataJSON)
    }
}

/// An EAK slot `(writer, user, reader, type)`.
public struct StoredAccessKey: Sendable, Hashable {
    /// The writer (lowercase UUID).
    public var writerID: String
    /// The user (lowercase UUID).
    public var userID: String
    /// The reader (lowercase UUID).
    public var readerID: String
    /// The record type.
    public var type: String
    /// The access key sealed to the reader (`ciphertext.nonce`).
    public var eak: String
    /// The client that stored this EAK (whose key sealed it).
    public var authorizerID: String
}

/// Where an encrypted access key and its sharing policy live: one writer's (and user's) records of one type, as one
/// reader sees them. Store functions take a slot instead of four adjacent strings that a swap would mix up.
public struct AccessKeySlot: Sendable, Hashable {
    /// The writer (lowercase UUID).
    public var writerID: String
    /// The user (lowercase UUID).
    public var userID: String
    /// The reader (lowercase UUID).
    public var readerID: String
    /// The record type.
    public var type: String

    /// Names a slot.
    public init(writerID: String, userID: String, readerID: String, type: String) {
        self.writerID = writerID
        self.userID = userID
        self.readerID = readerID
        self.type = type
    }

    /// The same writer, user and type, for another reader.
    public func withReader(_ readerID: String) -> AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type)
    }
}

extension StoredAccessKey {
    /// The slot this key fills.
    public var slot: AccessKeySlot { AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type) }

    /// A key for `slot`, stored by `authorizerID`.
    public init(slot: AccessKeySlot, eak: String, authorizerID: String) {
        self.init(
            writerID: slot.writerID,
            userID: slot.userID,
            readerID: slot.readerID,
            type: slot.type,
            eak: eak,
            authorizerID: authorizerID
        )
    }
}

extension StoredPolicy {
    /// The slot this policy governs.
    public var slot: AccessKeySlot { AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type) }

    /// No flags yet, for `slot`.
    public init(slot: AccessKeySlot) {
        self.init(
            userID: slot.userID,
            writerID: slot.writerID,
            readerID: slot.readerID,
            type: slot.type,
            canRead: false,
            isAuthorizer: false,
            authorizedBy: nil,
            readGrantedBy: nil
        )
    }
}

extension StoredRecord {
    /// The slot through which `reader` would read this record.
    func slot(reader: String) -> AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: reader, type: type)
    }
}

/// The sharing flags of `(user, writer, reader, type)`.
public struct StoredPolicy: Sendable, Hashable {
    /// The user (lowercase UUID).
    public var userID: String
    /// The writer (lowercase UUID).
    public var writerID: String
    /// The reader (lowercase UUID).
    public var readerID: String
    /// The record type.
    public var type: String
    /// Whether the reader may read records of the type.
    public var canRead: Bool
    /// Whether the reader may share the type on the writer's behalf.
    public var isAuthorizer: Bool
    /// Who granted the authorizer flag.
    public var authorizedBy: String?
    /// Who last granted `canRead` (the writer, or an authorizer on its behalf).
    public var readGrantedBy: String?
}

/// A registration token (multi-use, optionally capped).
public struct StoredRegistrationToken: Sendable, Hashable {
    /// The token string.
    public var token: String
    /// The display name.
    public var name: String
    /// How many registrations used it.
    public var uses: Int
    /// The most registrations it allows (nil: unlimited).
    public var maximumUses: Int?
    /// Whether it may authenticate.
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
    /// It happened; here is the result.
    case done(Value)
    /// The record exists at another version (HTTP 409).
    case conflict
    /// There is no such record.
    case notFound
}

/// Which records a search may see and the filters it applies.
public struct RecordQuery: Sendable, Hashable {
    /// Whose records a search covers.
    public enum Scope: Sendable, Hashable {
        /// Only records the caller wrote.
        case writtenBy(String)
        /// The caller's own records plus records shared with it through an allow-read policy.
        case readableBy(String)
    }

    /// Which records the caller may see.
    public var scope: Scope
    /// Only records after this index.
    public var afterIndex: Int64
    /// At most this many records.
    public var limit: Int
    /// Only these writers (empty: any).
    public var writerIDs: [String]
    /// Only these users (empty: any).
    public var userIDs: [String]
    /// Only these records (empty: any).
    public var recordIDs: [String]
    /// Only these types (empty: any).
    public var types: [String]
    /// Whether to read `data` and `rec_sig`; metadata-only queries leave them empty and fill
    /// ``StoredRecord/dataSize`` instead.
    public var includesData: Bool = true
}

/// A note: its JSON exactly as the writer sent it (ciphertext, public keys, options), plus the server's fields.
public struct StoredNote: Sendable, Hashable {
    /// The note ID (lowercase UUID).
    public var noteID: String
    /// Unique when set; nil for anonymous notes.
    public var idString: String?
    /// The note's JSON as stored and returned.
    public var body: [String: JSONValue]
    /// When it was created.
    public var created: Timestamp
    /// How many times it was read.
    public var views: Int64
    /// -1 (or 0) for unlimited.
    public var maximumViews: Int64
    /// When it stops being readable, if ever.
    public var expiresAt: Timestamp?
    /// The signing key that may read it.
    public var recipientSigningKey: String
    /// The writer's signing key (the TSV1 key that wrote it), for per-key quotas.
    public var writerSigningKey: String
}

/// How a note is looked up: by its `note_id` or by its `id_string` name.
public enum NoteLookup: Sendable, Hashable {
    /// By `note_id` (lowercase UUID).
    case id(String)
    /// By `id_string`.
    case name(String)
}

/// The new contents of a record for a version-checked update.
public struct RecordUpdate: Sendable, Hashable {
    /// The version the record gets.
    public var newVersion: String
    /// The new `meta.plain`.
    public var plain: [String: String]
    /// The new encrypted fields.
    public var data: [String: String]
    /// The writer's new `rec_sig`, if any.
    public var recordSignature: String?
    /// The modification time.
    public var lastModified: Timestamp

    /// Describes an update.
    public init(
        newVersion: String,
        plain: [String: String],
        data: [String: String],
        recordSignature: String?,
        lastModified: Timestamp
    ) {
        self.newVersion = newVersion
        self.plain = plain
        self.data = data
        self.recordSignature = recordSignature
        self.lastModified = lastModified
    }
}

/// One page of a listing.
public struct ListingPage: Sendable, Hashable {
    /// Entries at most.
    public var limit: Int
    /// Entries skipped.
    public var offset: Int

    /// Describes a page.
    public init(limit: Int, offset: Int) {
        self.limit = limit
        self.offset = offset
    }
}

/// The bounds on live notes.
public struct NoteQuota: Sendable, Hashable {
    /// Live notes one writer key may have.
    public var perKey: Int
    /// Live notes on the server.
    public var total: Int
    /// Bytes of live notes one writer key may have.
    public var bytesPerKey: Int64
    /// Bytes of live notes on the server.
    public var bytesTotal: Int64
    /// The largest note, in bytes of its stored JSON.
    public var bytesPerNote: Int

    /// Describes a quota.
    public init(
        perKey: Int,
        total: Int,
        bytesPerKey: Int64 = .max,
        bytesTotal: Int64 = .max,
        bytesPerNote: Int = .max
    ) {
        self.perKey = perKey
        self.total = total
        self.bytesPerKey = bytesPerKey
        self.bytesTotal = bytesTotal
        self.bytesPerNote = bytesPerNote
    }
}

/// What storing a note did.
public enum NoteInsertion: Sendable, Hashable {
    /// It was stored.
    case inserted
    /// Its `id_string` is taken.
    case nameTaken
    /// The writer's key, or the server, has as many live notes (or bytes of them) as the quota allows.
    case quotaExceeded
    /// The note alone is larger than ``NoteQuota/bytesPerNote``; nothing was stored.
    case tooLarge
}
