// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client's post-quantum hybrid key: X-Wing (ML-KEM-768 with X25519, KEM 0x647a), kept as its 32-byte seed
/// (the article "Post-quantum sharing").
public struct HybridPrivateKey: Sendable, CustomStringConvertible {
    /// The length of the seed.
    public static let seedByteCount = 32

    let key: XWingMLKEM768X25519.PrivateKey
    let seed: SecureBytes

    /// A fresh key from `random` (the system CSPRNG by default).
    public init(using random: some RandomSource = .system) {
        // swift-format-ignore: NeverUseForceTry
        try! self.init(seed: SecureRandom.bytes(count: Self.seedByteCount, using: random))  // 32 bytes always expand
    }

    /// The key a seed expands to (X-Wing's derandomised key generation).
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for a seed that is not 32 bytes.
    public init(seed: SecureBytes) throws(CryptoError) {
        guard seed.count == Self.seedByteCount else {
            throw CryptoError(.invalidKey, "an X-Wing seed is \(Self.seedByteCount) bytes")
        }
        do {
            key = try seed.withUnsafeBytes { bytes in
                try XWingMLKEM768X25519.PrivateKey(seedRepresentation: Data(bytes), publicKey: nil)
            }
        } catch {
            throw CryptoError(.invalidKey, "the X-Wing seed did not expand to a key")
        }
        self.seed = seed
    }

    /// The 32-byte seed, to keep with the client's other keys.
    public var seedRepresentation: SecureBytes { seed }

    /// The public half.
    public var publicKey: HybridPublicKey { HybridPublicKey(key.publicKey) }

    public var description: String { "HybridPrivateKey(X-Wing, redacted)" }
}

/// The public half of a ``HybridPrivateKey``: 1,216 bytes, the ML-KEM-768 encapsulation key then the X25519 key.
public struct HybridPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The length of the key.
    public static let byteCount = 1_216
    /// The length of its ML-KEM-768 encapsulation key, which comes first.
    static let mlkemByteCount = 1_184

    let key: XWingMLKEM768X25519.PublicKey

    init(_ key: XWingMLKEM768X25519.PublicKey) { self.key = key }

    /// A key from its 1,216 bytes, checked as X-Wing requires (ML-KEM's modulus check on the encapsulation key).
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for another length or an encapsulation key that is not valid.
    public init(rawRepresentation bytes: some DataProtocol) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw CryptoError(.invalidKey, "an X-Wing public key is \(Self.byteCount) bytes")
        }
        let data = Data(bytes)
        do {
            // ML-KEM's encapsulation key check (FIPS 203 §7.2, the modulus check) as swift-crypto's ML-KEM-768
            // parser makes it on the first 1,184 bytes; the X-Wing parser alone does not.
            _ = try MLKEM768.PublicKey(rawRepresentation: data.prefix(Self.mlkemByteCount))
            key = try XWingMLKEM768X25519.PublicKey(rawRepresentation: data)
        } catch {
            throw CryptoError(.invalidKey, "the bytes are not an X-Wing public key")
        }
    }

    /// The 1,216 bytes.
    public var rawRepresentation: Data { key.rawRepresentation }

    /// SHA-256 of the key: what a key log leaf commits to, keeping leaves fixed-size.
    public var digest: Data { Data(SHA256.hash(data: rawRepresentation)) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawRepresentation == rhs.rawRepresentation }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }

    public var description: String { "HybridPublicKey(X-Wing, \(digest.prefix(6).hexString))" }
}
