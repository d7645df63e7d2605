// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Someone an age file is encrypted to (the article "age files"): an X25519 key (`age1…`) or a post-quantum hybrid
/// X-Wing key (`age1pq1…`, age 1.3's `mlkem768x25519`). A Strongroom client's ``HybridPublicKey`` is one.
public enum AgeRecipient: Sendable, Hashable, CustomStringConvertible {
    /// X25519 (`age1…`): not post-quantum.
    case x25519(EncryptionPublicKey)
    /// X-Wing, ML-KEM-768 with X25519 (`age1pq1…`).
    case hybrid(HybridPublicKey)

    /// A recipient from its text.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for anything but an `age1…` or `age1pq1…` key in Bech32 whose bytes
    ///   are a valid key (an X25519 key of small order is refused).
    public init(_ text: String) throws(CryptoError) {
        guard let (prefix, bytes) = Bech32.decode(text), text == text.lowercased() else {
            throw CryptoError(.invalidKey, "an age recipient is age1… or age1pq1… in lowercase Bech32")
        }
        switch prefix {
        case "age" where bytes.count == EncryptionPublicKey.byteCount:
            let key = EncryptionPublicKey(checkedRawRepresentation: bytes)
            guard key.isUsableForKeyAgreement else {
                throw CryptoError(.invalidKey, "that X25519 key is of small order")
            }
            self = .x25519(key)
        case "age1pq":
            self = .hybrid(try HybridPublicKey(rawRepresentation: bytes))
        default:
            throw CryptoError(.invalidKey, "an age recipient is age1… (X25519) or age1pq1… (post-quantum)")
        }
    }

    /// The text form.
    public var description: String {
        switch self {
        case .x25519(let key): Bech32.encode(prefix: "age", key.rawRepresentation)
        case .hybrid(let key): Bech32.encode(prefix: "age1pq", key.rawRepresentation)
        }
    }

    /// Whether a file to this recipient resists a future quantum computer.
    public var isPostQuantum: Bool {
        if case .hybrid = self { return true }
        return false
    }
}

/// What opens an age file: the secret half of an ``AgeRecipient`` (`AGE-SECRET-KEY-1…` or `AGE-SECRET-KEY-PQ-1…`).
/// Its ``description`` never shows the key; ``secretText`` does.
public struct AgeIdentity: Sendable, CustomStringConvertible {
    enum Key: Sendable {
        case x25519(SecureBytes)
        case hybrid(HybridPrivateKey)
    }

    let key: Key

    /// The identity of a post-quantum key: a Strongroom client's X-Wing key is an age identity as it is.
    public init(_ key: HybridPrivateKey) { self.key = .hybrid(key) }

    /// A fresh X25519 identity, or with `postQuantum` a fresh X-Wing one.
    public static func generate(postQuantum: Bool = true) -> AgeIdentity {
        if postQuantum { return AgeIdentity(HybridPrivateKey()) }
        return AgeIdentity(key: .x25519(SecureRandom.bytes(count: 32)))
    }

    init(key: Key) { self.key = key }

    /// An identity from its text.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for anything but an `AGE-SECRET-KEY-1…` or `AGE-SECRET-KEY-PQ-1…`
    ///   key in uppercase Bech32.
    public init(_ text: String) throws(CryptoError) {
        let refused = CryptoError(.invalidKey, "an age identity is AGE-SECRET-KEY-1… or AGE-SECRET-KEY-PQ-1…")
        guard text == text.uppercased(), let (prefix, bytes) = Bech32.decode(text), bytes.count == 32 else {
            throw refused
        }
        let secret = SecureBytes(copying: bytes)
        switch prefix {
        case "age-secret-key-": key = .x25519(secret)
        case "age-secret-key-pq-": key = .hybrid(try HybridPrivateKey(seed: secret))
        default: throw refused
        }
    }

    /// The recipient files for this identity are encrypted to.
    public var recipient: AgeRecipient {
        switch key {
        case .x25519(let secret):
            let scalar = secret.withUnsafeBytes { Data($0) }
            // swift-format-ignore: NeverUseForceTry
            let agreement = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: scalar)  // 32 bytes always
            return .x25519(EncryptionPublicKey(checkedRawRepresentation: agreement.publicKey.rawRepresentation))
        case .hybrid(let key):
            return .hybrid(key.publicKey)
        }
    }

    /// The secret text (`AGE-SECRET-KEY-…`), for an identity file only.
    public var secretText: String {
        switch key {
        case .x25519(let secret):
            secret.withUnsafeBytes { Bech32.encode(prefix: "age-secret-key-", $0).uppercased() }
        case .hybrid(let key):
            key.seedRepresentation.withUnsafeBytes { Bech32.encode(prefix: "age-secret-key-pq-", $0).uppercased() }
        }
    }

    public var description: String { "AgeIdentity(\(recipient.isPostQuantum ? "X-Wing" : "X25519"), redacted)" }
}
