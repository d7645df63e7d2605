// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `PUT /v2/storage/clients/{id}/hybrid_key`: a client publishes its post-quantum (X-Wing) public key.
public struct HybridKeyRequest: Codable, Sendable, Hashable {
    /// The 1,216-byte X-Wing public key, unpadded base64url.
    public var publicKey: String
    /// The client's Ed25519 signature over StrongroomCrypto's `HybridKeyLeaf.signedBytes`, unpadded base64url.
    public var signature: String

    /// The longest `public_key` accepted: 1,216 bytes in base64url.
    public static let maximumKeyCharacters = 1_622

    enum CodingKeys: String, CodingKey {
        case signature
        case publicKey = "public_key"
    }

    /// Creates the body.
    public init(publicKey: String, signature: String) { (self.publicKey, self.signature) = (publicKey, signature) }
}

/// `GET /v2/storage/clients/{id}/hybrid_key`: the client's X-Wing key, its signature and the key log leaf that
/// records it, proven.
public struct HybridKeyResponse: Codable, Sendable, Hashable {
    /// The client.
    public var clientID: String
    /// The X-Wing public key, unpadded base64url.
    public var publicKey: String
    /// The client's signature over it.
    public var signature: String
    /// The `hybridKeyPublished` leaf with its proof.
    public var keyLog: KeyLogInclusion

    enum CodingKeys: String, CodingKey {
        case signature
        case clientID = "client_id"
        case publicKey = "public_key"
        case keyLog = "key_log"
    }

    /// Creates an answer.
    public init(clientID: String, publicKey: String, signature: String, keyLog: KeyLogInclusion) {
        (self.clientID, self.publicKey, self.signature, self.keyLog) = (clientID, publicKey, signature, keyLog)
    }
}
