// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomKeychain
import Testing

/// Public keys of every swift-crypto type on their own, with SwiftSecurity's `descriptor:`.
@Suite struct KeychainPublicKeyTests {
    @Test("every swift-crypto public key type round-trips under its descriptor, beside its private key")
    func roundTrip() throws {
        let keychain = Keychain.inMemory()
        func check<Key: KeychainKeyConvertible>(_ key: Key, _ descriptor: KeyDescriptor, _ tag: String) throws {
            try keychain.store(key, query: .key(for: tag, descriptor: descriptor))
            let back = try keychain.retrieve(.key(for: tag, descriptor: descriptor), as: Key.self)
            #expect(back?.keychainKeyData == key.keychainKeyData, "\(tag)")
        }
        let p256 = P256.KeyAgreement.PrivateKey()
        try keychain.store(p256, query: .key(for: "alice"))
        try check(p256.publicKey, .ecPublicKey, "alice")
        try check(P256.Signing.PrivateKey().publicKey, .ecPublicKey, "p256s")
        try check(P384.Signing.PrivateKey().publicKey, .ecPublicKey, "p384s")
        try check(P384.KeyAgreement.PrivateKey().publicKey, .ecPublicKey, "p384a")
        try check(P521.Signing.PrivateKey().publicKey, .ecPublicKey, "p521s")
        try check(P521.KeyAgreement.PrivateKey().publicKey, .ecPublicKey, "p521a")
        try check(Curve25519.Signing.PrivateKey().publicKey, .ed25519PublicKey, "ed")
        try check(Curve25519.KeyAgreement.PrivateKey().publicKey, .x25519PublicKey, "x")
        // The private key of the same tag is still there, and still private.
        #expect(
            try keychain.retrieve(.key(for: "alice"), as: P256.KeyAgreement.PrivateKey.self)?.rawRepresentation
                == p256.rawRepresentation
        )
        // Searchable as public keys, with their sizes.
        let publicKeys = try keychain.items(matching: .keys(keyClass: .public))
        #expect(publicKeys.count == 8)
        #expect(try keychain.items(matching: .keys(type: .ec, sizeInBits: 384, keyClass: .public)).count == 2)
    }

    @Test(
        "a public key is never read back as another curve or as a private key; a private key never fills a public slot"
    )
    func kindsAreKept() throws {
        let keychain = Keychain.inMemory()
        try keychain.store(P256.Signing.PrivateKey().publicKey, query: .key(for: "k", descriptor: .ecPublicKey))
        let mismatch = #expect(throws: KeychainError.self) {
            try keychain.retrieve(.key(for: "k", descriptor: .ecPublicKey), as: P384.Signing.PublicKey.self)
        }
        #expect(mismatch?.code == .typeMismatch)
        #expect(throws: KeychainError.self) {
            try keychain.retrieve(.key(for: "k", descriptor: .ecPublicKey), as: P256.Signing.PrivateKey.self)
        }
        let refused = #expect(throws: KeychainError.self) {
            try keychain.store(P256.Signing.PrivateKey(), query: .key(for: "j", descriptor: .ecPublicKey))
        }
        #expect(refused?.code == .invalidParameters)
    }
}
