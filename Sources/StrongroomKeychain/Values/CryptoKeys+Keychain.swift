// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Crypto
import Foundation
public import StrongroomCore
public import StrongroomCrypto

extension Curve25519.Signing.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "curve25519.signing" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension Curve25519.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "curve25519.keyagreement" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P256.Signing.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p256.signing" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P256.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p256.keyagreement" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P384.Signing.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p384.signing" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P384.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p384.keyagreement" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P521.Signing.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p521.signing" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension P521.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "p521.keyagreement" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData.withUnsafeBytes { Data($0) }) }
    }
    public var keychainKeyData: SecureBytes { SecureBytes(copying: rawRepresentation) }
}

extension SymmetricKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "symmetric" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = keychainKeyData.withUnsafeBytes { SymmetricKey(data: $0) }
    }
    public var keychainKeyData: SecureBytes { withUnsafeBytes { SecureBytes(copying: $0) } }
    public var keychainKeyAttributes: KeyAttributes? {
        KeyAttributes(keyType: .symmetric, keySizeInBits: bitCount, keyClass: .symmetric)
    }
}

extension SigningPrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "strongroom.ed25519" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData) }
    }
    public var keychainKeyData: SecureBytes { rawRepresentation }
}

extension EncryptionPrivateKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "strongroom.x25519" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData) }
    }
    public var keychainKeyData: SecureBytes { rawRepresentation }
}

extension AccessKey: KeychainKeyConvertible {
    public static var keychainKeyKind: String { "strongroom.accesskey" }
    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        self = try Self.converting { try Self(rawRepresentation: keychainKeyData) }
    }
    public var keychainKeyData: SecureBytes { rawRepresentation }
}
