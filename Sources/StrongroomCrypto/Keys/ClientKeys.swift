// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// A client's key pairs: X25519 for encryption and Ed25519 for signing, as E3DB registration needs them, and the
/// post-quantum X-Wing key that access keys are sealed to beside X25519 (the article "Post-quantum sharing").
public struct ClientKeys: Sendable, CustomStringConvertible {
    /// The X25519 private key (its public half is registered as `public_key.curve25519`).
    public var encryptionKey: EncryptionPrivateKey
    /// The Ed25519 private key (its public half is registered as `signing_key.ed25519`).
    public var signingKey: SigningPrivateKey
    /// The X-Wing private key (its public half is published in the key log after registration); nil for a client
    /// made before post-quantum sharing, which gets access keys sealed with X25519 only.
    public var hybridKey: HybridPrivateKey?

    /// Pairs existing keys.
    public init(encryptionKey: EncryptionPrivateKey, signingKey: SigningPrivateKey, hybridKey: HybridPrivateKey? = nil)
    {
        self.encryptionKey = encryptionKey
        self.signingKey = signingKey
        self.hybridKey = hybridKey
    }

    /// Generates the three key pairs from `random` (the system CSPRNG by default).
    public static func generate(using random: some RandomSource = .system) -> ClientKeys {
        ClientKeys(
            encryptionKey: EncryptionPrivateKey(using: random),
            signingKey: SigningPrivateKey(using: random),
            hybridKey: HybridPrivateKey(using: random)
        )
    }

    public var description: String {
        "ClientKeys(\(encryptionKey), \(signingKey)\(hybridKey.map { ", \($0)" } ?? ""))"
    }
}
