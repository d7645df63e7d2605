// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomWire

/// A registered client as the server stores it: public keys and a hash of the API secret, nothing private.
package struct StoredClient: Sendable, Hashable {
    /// The client ID (lowercase UUID).
    package var clientID: String
    /// The display name.
    package var name: String
    /// The encryption public key, as registered.
    package var publicKey: PublicKeyObject
    /// The signing public key, if one was registered.
    package var signingKey: SigningKeyObject?
    /// The API key ID (public half of the credentials).
    package var apiKeyID: String
    /// SHA-256 of the API secret (the secret itself is never stored).
    package var apiSecretHash: String
    /// Whether it may authenticate.
    package var enabled: Bool
    /// When it was created.
    package var created: Timestamp
    /// The registration token it was registered with (for the credential-backup call).
    package var registrationToken: String?
    /// When it last replaced its keys (`POST /v2/storage/clients/{id}/keys`): tokens issued before are refused.
    package var keysChanged: Timestamp? = nil
    /// Its post-quantum (X-Wing) public key, base64url, once it published one.
    package var hybridKey: String? = nil
}

/// A registration token (multi-use, optionally capped).
package struct StoredRegistrationToken: Sendable, Hashable {
    /// The token string.
    package var token: String
    /// The display name.
    package var name: String
    /// How many registrations used it.
    package var uses: Int
    /// The most registrations it allows (nil: unlimited).
    package var maximumUses: Int?
    /// Whether it may authenticate.
    package var enabled: Bool

    /// Creates a token row.
    package init(token: String, name: String, uses: Int, maximumUses: Int?, enabled: Bool) {
        self.token = token
        self.name = name
        self.uses = uses
        self.maximumUses = maximumUses
        self.enabled = enabled
    }
}
