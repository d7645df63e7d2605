// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `GET /v1/storage/access_keys/{w}/{u}/{r}/{type}` answer.
public struct AccessKeyResponse: Codable, Sendable, Hashable {
    /// `b64url(box).b64url(nonce)`; empty for a type sealed post-quantum only (the policy `require`).
    public var eak: String
    /// The post-quantum wrap of the same key (X-Wing HPKE signed by the authorizer, 1,643 base64url characters),
    /// absent when none was stored. A Strongroom field: the official SDKs ignore it.
    public var hybridEAK: String?
    /// The client that stored this EAK (whose key sealed it).
    public var authorizerID: String
    /// `authorizer_public_key` in the JSON.
    public var authorizerPublicKey: PublicKeyObject
    /// The record writer, for offline document verification.
    public var signerID: String?
    /// `signer_signing_key` in the JSON.
    public var signerSigningKey: SigningKeyObject?

    enum CodingKeys: String, CodingKey {
        case eak
        case authorizerID = "authorizer_id"
        case authorizerPublicKey = "authorizer_public_key"
        case signerID = "signer_id"
        case signerSigningKey = "signer_signing_key"
        case hybridEAK = "hybrid_eak"
    }

    /// Creates an access-key response.
    public init(
        eak: String,
        hybridEAK: String? = nil,
        authorizerID: String,
        authorizerPublicKey: PublicKeyObject,
        signerID: String?,
        signerSigningKey: SigningKeyObject?
    ) {
        self.eak = eak
        self.hybridEAK = hybridEAK
        self.authorizerID = authorizerID
        self.authorizerPublicKey = authorizerPublicKey
        self.signerID = signerID
        self.signerSigningKey = signerSigningKey
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eak, forKey: .eak)
        try container.encode(authorizerID, forKey: .authorizerID)
        try container.encode(authorizerPublicKey, forKey: .authorizerPublicKey)
        try container.encode(signerID, forKey: .signerID)
        try container.encode(signerSigningKey, forKey: .signerSigningKey)  // Java needs the key present
        try container.encodeIfPresent(hybridEAK, forKey: .hybridEAK)
    }
}

/// `PUT /v1/storage/access_keys/…` body.
public struct AccessKeyPutRequest: Codable, Sendable, Hashable {
    /// The exact length of a post-quantum wrap in base64url (1,232 bytes).
    public static let hybridEAKCharacters = 1_643

    /// `eak` in the JSON; empty when only `hybrid_eak` is sent.
    public var eak: String
    /// `hybrid_eak` in the JSON: the post-quantum wrap of the same key, optional.
    public var hybridEAK: String?

    enum CodingKeys: String, CodingKey {
        case eak
        case hybridEAK = "hybrid_eak"
    }

    /// Creates the body.
    public init(eak: String, hybridEAK: String? = nil) {
        self.eak = eak
        self.hybridEAK = hybridEAK
    }
}
