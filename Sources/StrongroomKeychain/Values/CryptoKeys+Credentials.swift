// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Crypto
public import StrongroomCore

// SwiftSecurity stores symmetric and Curve25519 keys as generic passwords (`SecDataConvertible`), so a port's
// `store(SymmetricKey(size: .bits256), query: .credential(for: "chat"))` works here too. The same keys can also
// live as key items (`.key(for:)`), where their kind is checked on retrieval; P-256/384/521 keys are key items only.

extension SymmetricKey: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) { try self.init(keychainKeyData: keychainData) }
    public var keychainData: SecureBytes { keychainKeyData }
}

extension Curve25519.Signing.PrivateKey: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) { try self.init(keychainKeyData: keychainData) }
    public var keychainData: SecureBytes { keychainKeyData }
}

extension Curve25519.KeyAgreement.PrivateKey: KeychainDataConvertible {
    public init(keychainData: SecureBytes) throws(KeychainError) { try self.init(keychainKeyData: keychainData) }
    public var keychainData: SecureBytes { keychainKeyData }
}
