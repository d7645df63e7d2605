// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Crypto
import Foundation
public import StrongroomCore

// Public keys on their own (SwiftSecurity's `store(publicKey, query: .key(for: tag, descriptor: .ecPublicKey))`):
// a NIST-curve key as its DER `SubjectPublicKeyInfo`, a Curve25519 key as its 32 raw bytes. Each kind is its private
// counterpart's name with `.public`, so a public key is never read back as a private one or as another curve.

extension Curve25519.Signing.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "curve25519.signing.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension Curve25519.KeyAgreement.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "curve25519.keyagreement.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P256.Signing.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p256.signing.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}

extension P256.KeyAgreement.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p256.keyagreement.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}

extension P384.Signing.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p384.signing.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}

extension P384.KeyAgreement.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p384.keyagreement.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}

extension P521.Signing.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p521.signing.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}

extension P521.KeyAgreement.PublicKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p521.keyagreement.public" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(derRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: derRepresentation) }
}
