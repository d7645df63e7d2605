// Strongroom — SPDX-License-Identifier: Apache-2.0
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
