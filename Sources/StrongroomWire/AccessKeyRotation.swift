// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}` answer: the type's access-key generation (1 for a type never
/// rotated) and the clients holding an EAK of it, the writer included.
public struct AccessKeyGenerationResponse: Codable, Sendable, Hashable {
    /// The current generation, from 1.
    public var generation: Int
    /// The readers with an EAK (lowercase UUIDs, sorted).
    public var readers: [String]
    /// The links between generations the server keeps, newest first (at most the server's limit): each one the key
    /// of the generation before it sealed under its generation's key. Absent from a server that keeps none.
    public var links: [AccessKeyLink]?

    /// Creates the answer.
    public init(generation: Int, readers: [String], links: [AccessKeyLink]? = nil) {
        self.generation = generation
        self.readers = readers
        self.links = links
    }
}

/// Generation `generation`'s link: the key of generation `generation - 1` sealed under the key of `generation`.
public struct AccessKeyLink: Codable, Sendable, Hashable {
    /// The generation whose key seals the link, from 2.
    public var generation: Int
    /// The previous generation's key, `ciphertext.nonce` in base64url (an EAK's wire form, `crypto_secretbox`).
    public var previous: String

    /// Creates one.
    public init(generation: Int, previous: String) {
        self.generation = generation
        self.previous = previous
    }
}

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}/links?below=N` answer, for the writer and every holder of an
/// EAK of the type (404 for anyone else): the type's current generation and its links between generations below
/// `N` (all of them without `below`), newest first, at most ``maximumLinks``. A holder of the newest key opens the
/// older ones link by link, paging down with `below`; a revoked reader, holding only older keys, opens none of the
/// newer links.
public struct AccessKeyLinksResponse: Codable, Sendable, Hashable {
    /// The most links one answer carries.
    public static let maximumLinks = 64

    /// The type's current generation, from 1.
    public var generation: Int
    /// The links, newest first.
    public var links: [AccessKeyLink]

    /// Creates the answer.
    public init(generation: Int, links: [AccessKeyLink]) {
        self.generation = generation
        self.links = links
    }
}

/// `POST /v2/storage/access_keys/{writer}/{user}/{type}/rotate` body: generation `generation` of the type, committed
/// at once with the revocations.
///
/// The server refuses (409, nothing changed) a `generation` other than the current one plus one, and `eaks` that
/// do not name exactly the readers holding an EAK now minus `revoke`.
public struct AccessKeyRotationRequest: Codable, Sendable, Hashable {
    /// The new generation: the current one plus one.
    public var generation: Int
    /// The new access key sealed to each remaining reader (the writer included).
    public var eaks: [ReaderAccessKey]
    /// The readers losing access: their EAKs are deleted and their reads denied.
    public var revoke: [String]
    /// The current generation's key sealed under the new one (``AccessKeyLink/previous``), kept by the server with
    /// the new generation: a rotation interrupted before it re-wrapped every record resumes from it, since the old
    /// key is otherwise nowhere once the EAKs are replaced.
    public var previous: String?
    /// The key log leaf recording the new generation (`KeyGenerationLeaf`), appended by the server in the same
    /// transaction; required by servers with a key log.
    public var keyLog: KeyRotationLogLeaf?

    enum CodingKeys: String, CodingKey {
        case generation, eaks, revoke, previous
        case keyLog = "key_log"
    }

    /// Creates the body.
    public init(
        generation: Int,
        eaks: [ReaderAccessKey],
        revoke: [String],
        previous: String? = nil,
        keyLog: KeyRotationLogLeaf? = nil
    ) {
        self.generation = generation
        self.eaks = eaks
        self.revoke = revoke
        self.previous = previous
        self.keyLog = keyLog
    }
}

/// The two parts of a rotation's key log leaf, as the writer computes them (the server cannot: both are keyed by
/// access keys it never sees).
public struct KeyRotationLogLeaf: Codable, Sendable, Hashable {
    /// The superseded key's successor tag: standard base64 of 16 bytes.
    public var successorTag: String
    /// The commitment to the new key: standard base64 of 32 bytes.
    public var commitment: String

    enum CodingKeys: String, CodingKey {
        case successorTag = "successor_tag"
        case commitment
    }

    /// Creates the parts.
    public init(successorTag: String, commitment: String) {
        self.successorTag = successorTag
        self.commitment = commitment
    }
}

/// One reader's EAK in a rotation.
public struct ReaderAccessKey: Codable, Sendable, Hashable {
    /// The reader (lowercase UUID).
    public var readerID: String
    /// The EAK, `ciphertext.nonce` in base64url, as `PUT /v1/storage/access_keys/…` takes it; empty when only the
    /// post-quantum wrap is sent.
    public var eak: String
    /// The post-quantum wrap, as `PUT /v1/storage/access_keys/…` takes it.
    public var hybridEAK: String?

    enum CodingKeys: String, CodingKey {
        case readerID = "reader_id"
        case eak
        case hybridEAK = "hybrid_eak"
    }

    /// Creates one.
    public init(readerID: String, eak: String, hybridEAK: String? = nil) {
        self.readerID = readerID
        self.eak = eak
        self.hybridEAK = hybridEAK
    }
}
