// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `GET /v1/storage/access_keys/{w}/{u}/{r}/{type}` answer.
public struct AccessKeyResponse: Codable, Sendable, Hashable {
    /// `b64url(box).b64url(nonce)`.
    public var eak: String
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
    }

    /// Creates an access-key response.
    public init(
        eak: String,
        authorizerID: String,
        authorizerPublicKey: PublicKeyObject,
        signerID: String?,
        signerSigningKey: SigningKeyObject?
    ) {
        self.eak = eak
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
    }
}

/// `PUT /v1/storage/access_keys/…` body.
public struct AccessKeyPutRequest: Codable, Sendable, Hashable {
    /// `eak` in the JSON.
    public var eak: String

    /// Creates the body.
    public init(eak: String) { self.eak = eak }
}
