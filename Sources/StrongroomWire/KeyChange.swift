// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One encrypted access key the caller holds as a reader (`GET /v2/storage/access_keys/held`), with the generation
/// of its type, so a key change re-wraps exactly these.
public struct HeldAccessKey: Codable, Sendable, Hashable {
    /// The writer.
    public var writerID: String
    /// The user.
    public var userID: String
    /// The record type.
    public var type: String
    /// The EAK and who sealed it, as `GET /v1/storage/access_keys/…` answers.
    public var accessKey: AccessKeyResponse
    /// The type's current key generation (1 for a type never rotated).
    public var generation: Int

    enum CodingKeys: String, CodingKey {
        case type, generation
        case writerID = "writer_id"
        case userID = "user_id"
        case accessKey = "access_key"
    }

    /// Creates an entry.
    public init(writerID: String, userID: String, type: String, accessKey: AccessKeyResponse, generation: Int) {
        (self.writerID, self.userID, self.type) = (writerID, userID, type)
        (self.accessKey, self.generation) = (accessKey, generation)
    }
}

/// `GET /v2/storage/access_keys/held?start=`: the caller's EAKs as a reader, ordered by writer, user and type.
public struct HeldAccessKeysResponse: Codable, Sendable, Hashable {
    /// At most ``maximumPage`` keys from `start`.
    public var keys: [HeldAccessKey]

    /// The most keys one answer carries.
    public static let maximumPage = 1_000

    /// Creates an answer.
    public init(keys: [HeldAccessKey]) { self.keys = keys }
}

/// An access key the caller holds, re-sealed by its new key to its new key (``KeyChangeRequest/rewrapped``).
public struct RewrappedAccessKey: Codable, Sendable, Hashable {
    /// The writer.
    public var writerID: String
    /// The user.
    public var userID: String
    /// The record type.
    public var type: String
    /// The new EAK, `b64url(box).b64url(nonce)`; empty when only the post-quantum wrap is sent.
    public var eak: String
    /// The new post-quantum wrap, to the caller's new X-Wing key and signed by its new signing key; absent: the
    /// slot keeps none.
    public var hybridEAK: String?
    /// The generation the key is of: the change is refused when the type has rotated since.
    public var generation: Int

    enum CodingKeys: String, CodingKey {
        case type, eak, generation
        case writerID = "writer_id"
        case userID = "user_id"
        case hybridEAK = "hybrid_eak"
    }

    /// Creates an entry.
    public init(writerID: String, userID: String, type: String, eak: String, hybridEAK: String? = nil, generation: Int)
    {
        (self.writerID, self.userID, self.type, self.eak) = (writerID, userID, type, eak)
        (self.hybridEAK, self.generation) = (hybridEAK, generation)
    }
}

/// `POST /v2/storage/clients/{id}/keys`: a client replaces its keys (StrongroomCrypto's `KeyChangeStatement`).
public struct KeyChangeRequest: Codable, Sendable, Hashable {
    /// The new X25519 key.
    public var publicKey: PublicKeyObject
    /// The new Ed25519 key.
    public var signingKey: SigningKeyObject
    /// The statement's signature by the current signing key, unpadded base64url.
    public var oldSignature: String
    /// The statement's signature by the new signing key, unpadded base64url.
    public var newSignature: String
    /// A new API secret replacing the current one (its SHA-256 is stored), or nil to keep it.
    public var apiSecret: String?
    /// Every access key the client holds as a reader, re-sealed to the new key: exactly the set it holds.
    public var rewrapped: [RewrappedAccessKey]

    /// The most re-wrapped keys one change carries.
    public static let maximumRewrapped = 10_000

    enum CodingKeys: String, CodingKey {
        case rewrapped
        case publicKey = "public_key"
        case signingKey = "signing_key"
        case oldSignature = "old_signature"
        case newSignature = "new_signature"
        case apiSecret = "api_secret"
    }

    /// Creates the body.
    public init(
        publicKey: PublicKeyObject,
        signingKey: SigningKeyObject,
        oldSignature: String,
        newSignature: String,
        apiSecret: String?,
        rewrapped: [RewrappedAccessKey]
    ) {
        (self.publicKey, self.signingKey) = (publicKey, signingKey)
        (self.oldSignature, self.newSignature) = (oldSignature, newSignature)
        (self.apiSecret, self.rewrapped) = (apiSecret, rewrapped)
    }
}

/// The key log leaf that logs a change the caller made: a key change's `keysChanged` leaf, a published post-quantum
/// key's `hybridKeyPublished` leaf.
public struct KeyLogLeafResponse: Codable, Sendable, Hashable {
    /// The leaf's index in the key log.
    public var index: UInt64

    /// Creates an answer.
    public init(index: UInt64) { self.index = index }
}

/// The two signatures of a key change, served with its `keysChanged` leaf in a client's key history.
public struct KeyChangeSignatures: Codable, Sendable, Hashable {
    /// By the signing key the change left, unpadded base64url.
    public var old: String
    /// By the signing key it took.
    public var new: String

    /// Creates the pair.
    public init(old: String, new: String) { (self.old, self.new) = (old, new) }
}
