// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCore

/// A value stored as a password or other secret bytes (generic and internet passwords). Adopt it for your types.
public protocol KeychainDataConvertible: Sendable {
    /// Recreates the value from its stored bytes.
    init(keychainData: SecureBytes) throws(KeychainError)
    /// The bytes to store.
    var keychainData: SecureBytes { get }
}

extension String: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) {
        guard let text = keychainData.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw KeychainError(.typeMismatch, "the stored bytes are not UTF-8 text")
        }
        self = text
    }

    public var keychainData: SecureBytes { SecureBytes(copying: Array(utf8)) }
}

extension Data: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) {
        self = keychainData.withUnsafeBytes { Data($0) }
    }

    public var keychainData: SecureBytes { SecureBytes(copying: self) }
}

extension SecureBytes: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) { self = keychainData }
    public var keychainData: SecureBytes { self }
}

/// A key stored in the keychain (``SecKey`` items). swift-crypto's private and symmetric keys and Strongroom's own
/// keys conform; adopt it for your key types.
public protocol KeychainKeyConvertible: Sendable {
    /// A stable name of the key's kind (`curve25519.signing`, `p256.keyagreement`, …), checked on retrieval so a
    /// key is never read back as another kind.
    static var keychainKeyKind: String { get }
    /// Recreates the key from its raw representation.
    init(keychainKeyData: SecureBytes) throws(KeychainError)
    /// The key's raw representation.
    var keychainKeyData: SecureBytes { get }
    /// The key's type, size and class, recorded with the item so ``ItemFilter/keys(type:sizeInBits:keyClass:)``
    /// finds it. The default describes the built-in kinds and is nil for others.
    var keychainKeyAttributes: KeyAttributes? { get }
}

extension KeychainKeyConvertible {
    public var keychainKeyAttributes: KeyAttributes? { KeyAttributes(kind: Self.keychainKeyKind) }
}

extension KeychainKeyConvertible {
    /// Runs a throwing initialiser of a key library and reports its failure as ``KeychainError/Code/typeMismatch``.
    static func converting<Key>(_ body: () throws -> Key) throws(KeychainError) -> Key {
        do {
            return try body()
        } catch {
            throw KeychainError(.typeMismatch, "the stored bytes are not a valid \(keychainKeyKind) key")
        }
    }
}

/// What an item holds, as the backends see it: a kind name and the bytes.
struct StoredValue: Sendable {
    var kind: String
    var bytes: SecureBytes
    /// Descriptive attributes recorded in the item's information (``ItemInfo/attributes``).
    var attributes: [String: String] = [:]
}
