// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCrypto

/// What the server publishes about a client: its public keys, so others can share with it and verify what it
/// signed (the official SDKs' `client_info`). Nothing here is secret.
public struct ClientPublicInfo: Sendable, Hashable {
    /// The client.
    public var clientID: UUID
    /// Its Curve25519 public key, which access keys for it are sealed to.
    public var publicKey: EncryptionPublicKey
    /// Its Ed25519 public signing key, or nil when it registered without one (older SDKs).
    public var signingKey: SigningPublicKey?
    /// Whether the server marks it validated.
    public var isValidated: Bool

    /// Creates the information.
    public init(clientID: UUID, publicKey: EncryptionPublicKey, signingKey: SigningPublicKey?, isValidated: Bool) {
        self.clientID = clientID
        self.publicKey = publicKey
        self.signingKey = signingKey
        self.isValidated = isValidated
    }
}
