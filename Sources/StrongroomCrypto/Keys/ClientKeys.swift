// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// A client's two key pairs: X25519 for encryption and Ed25519 for signing, as E3DB registration needs them.
public struct ClientKeys: Sendable, CustomStringConvertible {
    /// The X25519 private key (its public half is registered as `public_key.curve25519`).
    public var encryptionKey: EncryptionPrivateKey
    /// The Ed25519 private key (its public half is registered as `signing_key.ed25519`).
    public var signingKey: SigningPrivateKey

    /// Pairs existing keys.
    public init(encryptionKey: EncryptionPrivateKey, signingKey: SigningPrivateKey) {
        self.encryptionKey = encryptionKey
        self.signingKey = signingKey
    }

    /// Generates both key pairs from `random` (the system CSPRNG by default).
    public static func generate(using random: some RandomSource = .system) -> ClientKeys {
        ClientKeys(encryptionKey: EncryptionPrivateKey(using: random), signingKey: SigningPrivateKey(using: random))
    }

    public var description: String { "ClientKeys(\(encryptionKey), \(signingKey))" }
}
