// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}` answer: the type's access-key generation (1 for a type never
/// rotated) and the clients holding an EAK of it, the writer included.
public struct AccessKeyGenerationResponse: Codable, Sendable, Hashable {
    /// The current generation, from 1.
    public var generation: Int
    /// The readers with an EAK (lowercase UUIDs, sorted).
    public var readers: [String]

    /// Creates the answer.
    public init(generation: Int, readers: [String]) {
        self.generation = generation
        self.readers = readers
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

    /// Creates the body.
    public init(generation: Int, eaks: [ReaderAccessKey], revoke: [String]) {
        self.generation = generation
        self.eaks = eaks
        self.revoke = revoke
    }
}

/// One reader's EAK in a rotation.
public struct ReaderAccessKey: Codable, Sendable, Hashable {
    /// The reader (lowercase UUID).
    public var readerID: String
    /// The EAK, `ciphertext.nonce` in base64url, as `PUT /v1/storage/access_keys/…` takes it.
    public var eak: String

    enum CodingKeys: String, CodingKey {
        case readerID = "reader_id"
        case eak
    }

    /// Creates one.
    public init(readerID: String, eak: String) {
        self.readerID = readerID
        self.eak = eak
    }
}
