// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import StrongroomCore
public import StrongroomPKI
import SwiftASN1
public import X509

extension Certificate.PrivateKey: KeychainKeyConvertible {
    /// Any key type swift-certificates holds (P-256/384/521, Ed25519, RSA), stored as PKCS#8.
    public static var keychainKeyKind: String { "pkcs8" }

    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        do {
            self = try Certificate.PrivateKey(encoded: keychainKeyData)
        } catch {
            throw KeychainError(.typeMismatch, "the stored bytes are not a PKCS#8 private key")
        }
    }

    /// PKCS#8 DER (empty for a key that cannot be serialised, which then fails to load: store such keys through
    /// ``Keychain/generateKeyPair(_:tag:accessPolicy:)`` or check `pkcs8()` first).
    public var keychainKeyData: SecureBytes { (try? pkcs8()) ?? SecureBytes(copying: []) }

    public var keychainKeyAttributes: KeyAttributes? { KeyAttributes(publicKey, keyClass: .private) }
}

extension Certificate.PublicKey: KeychainKeyConvertible {
    /// A public key on its own (SwiftSecurity's `.ecPublicKey` descriptor), stored as its `SubjectPublicKeyInfo`.
    public static var keychainKeyKind: String { "spki" }

    public init(keychainKeyData: SecureBytes) throws(KeychainError) {
        do {
            self = try keychainKeyData.withUnsafeBytes { try Certificate.PublicKey(derEncoded: Array($0)) }
        } catch {
            throw KeychainError(.typeMismatch, "the stored bytes are not a SubjectPublicKeyInfo")
        }
    }

    public var keychainKeyData: SecureBytes { SecureBytes(copying: subjectPublicKeyInfo) }

    public var keychainKeyAttributes: KeyAttributes? { KeyAttributes(self, keyClass: .public) }
}

extension KeyAttributes {
    /// The attributes of a swift-certificates key, or nil for a type outside ``KeyAlgorithm``.
    init?(_ publicKey: Certificate.PublicKey, keyClass: KeyClass) {
        // A key type outside KeyAlgorithm has no attributes (documented nil).
        guard let algorithm = try? KeyAlgorithm(of: publicKey) else { return nil }
        let type: KeyType =
            switch algorithm {
            case .p256, .p384, .p521: .ec
            case .ed25519: .ed25519
            case .rsa: .rsa
            }
        self.init(keyType: type, keySizeInBits: algorithm.keySizeInBits, keyClass: keyClass)
    }
}

extension ItemQuery where Class == SecKey {
    /// The private half of the key pair named `tag` (the same item as ``key(for:)``).
    public static func privateKey(for tag: String) -> Self { .key(for: tag) }

    /// The public half of the key pair named `tag`, stored beside the private one.
    public static func publicKey(for tag: String) -> Self {
        var query = Self.key(for: tag)
        query["keyClass"] = "public"
        return query
    }

    /// The key named `tag` of the kind `descriptor` names (SwiftSecurity's `.key(for:descriptor:)`): a public key
    /// is the item ``publicKey(for:)`` names, beside a private key of the same tag; a private or symmetric key is
    /// ``key(for:)``'s item.
    public static func key(for tag: String, descriptor: KeyDescriptor) -> Self {
        descriptor.keyClass == .public ? .publicKey(for: tag) : .key(for: tag)
    }
}

/// Which kind of key an item holds (SwiftSecurity's `SecKeyDescriptor`): its family and its half.
public struct KeyDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The algorithm family.
    public var keyType: KeyType
    /// Private, public or symmetric.
    public var keyClass: KeyClass

    /// A descriptor of `keyType` and `keyClass`.
    public init(keyType: KeyType, keyClass: KeyClass) {
        self.keyType = keyType
        self.keyClass = keyClass
    }

    /// A NIST-curve private key (P-256, P-384, P-521).
    public static let ecPrivateKey = KeyDescriptor(keyType: .ec, keyClass: .private)
    /// A NIST-curve public key.
    public static let ecPublicKey = KeyDescriptor(keyType: .ec, keyClass: .public)
    /// An RSA private key.
    public static let rsaPrivateKey = KeyDescriptor(keyType: .rsa, keyClass: .private)
    /// An RSA public key.
    public static let rsaPublicKey = KeyDescriptor(keyType: .rsa, keyClass: .public)
    /// An Ed25519 private key.
    public static let ed25519PrivateKey = KeyDescriptor(keyType: .ed25519, keyClass: .private)
    /// An Ed25519 public key.
    public static let ed25519PublicKey = KeyDescriptor(keyType: .ed25519, keyClass: .public)
    /// An X25519 private key.
    public static let x25519PrivateKey = KeyDescriptor(keyType: .x25519, keyClass: .private)
    /// An X25519 public key.
    public static let x25519PublicKey = KeyDescriptor(keyType: .x25519, keyClass: .public)

    public var description: String { "\(keyClass.rawValue) \(keyType.rawValue) key" }
}

/// A key pair kept in the keychain (ConfidoIOS's `KeychainKeyPair`): the public key and its pin are at hand; the
/// private key is read from the keychain only inside ``sign(_:algorithm:)`` and never handed to the caller.
public struct KeychainKeyPair: CertificateSigner {
    /// The keychain that holds it.
    public let keychain: Keychain
    /// Its application tag.
    public let tag: String
    /// The public half.
    public let publicKey: Certificate.PublicKey
    /// Its key type and size.
    public let algorithm: KeyAlgorithm

    /// SHA-256 of the public key's `SubjectPublicKeyInfo`: the pin.
    public var spkiSHA256: [UInt8] { publicKey.spkiSHA256 }

    /// Signs `bytes` inside the keychain module; the private key is loaded, used and released here.
    ///
    /// - Throws: `PKIError` `keyMismatch` when the stored private key no longer matches the public one;
    ///   `unsupported` when the keychain cannot give it (locked, removed).
    public func sign(
        _ bytes: [UInt8],
        algorithm: Certificate.SignatureAlgorithm
    ) throws(PKIError) -> Certificate.Signature {
        let key: Certificate.PrivateKey?
        do {
            key = try keychain.retrieve(.privateKey(for: tag), as: Certificate.PrivateKey.self)
        } catch {
            throw PKIError(.unsupported, "the keychain cannot give the private key \(tag)", underlying: error)
        }
        guard let key else { throw PKIError(.unsupported, "the private key \(tag) is gone") }
        guard key.publicKey == publicKey else {
            throw PKIError(.keyMismatch, "the private key \(tag) does not match its public key")
        }
        return try InMemorySigner(key).sign(bytes, algorithm: algorithm)
    }
}

extension Keychain {
    /// Generates a key pair and stores both halves — the private key at ``ItemQuery/privateKey(for:)`` (PKCS#8),
    /// the public key at ``ItemQuery/publicKey(for:)`` — and returns the pair, whose public key and pin are
    /// reachable without reading the private key again.
    ///
    /// - Throws: ``KeychainError/Code/duplicateItem`` when a key with `tag` exists; ``KeychainError/Code/invalidParameters``
    ///   for an unsupported RSA size.
    @discardableResult
    public func generateKeyPair(
        _ algorithm: KeyAlgorithm,
        tag: String,
        accessPolicy: AccessPolicy = .default
    ) throws(KeychainError) -> KeychainKeyPair {
        let key: Certificate.PrivateKey
        do {
            key = try algorithm.generatePrivateKey()
            _ = try key.pkcs8()
        } catch {
            throw KeychainError(.invalidParameters, error.message)
        }
        var privateQuery = ItemQuery<SecKey>.privateKey(for: tag)
        privateQuery.label = "\(algorithm) private key"
        var publicQuery = ItemQuery<SecKey>.publicKey(for: tag)
        publicQuery.label = "\(algorithm) public key"
        try store(key, query: privateQuery, accessPolicy: accessPolicy)
        do {
            try store(key.publicKey, query: publicQuery, accessPolicy: .default)
        } catch {
            _ = try? remove(privateQuery)  // best effort: a half-stored pair must not stay
            throw error
        }
        return KeychainKeyPair(keychain: self, tag: tag, publicKey: key.publicKey, algorithm: algorithm)
    }

    /// The key pair named `tag` (from its stored public key), or nil when there is none.
    public func keyPair(for tag: String) throws(KeychainError) -> KeychainKeyPair? {
        guard let publicKey = try retrieve(.publicKey(for: tag), as: Certificate.PublicKey.self) else { return nil }
        guard let algorithm = try? KeyAlgorithm(of: publicKey) else {
            throw KeychainError(.typeMismatch, "the public key \(tag) is of an unsupported type")
        }
        return KeychainKeyPair(keychain: self, tag: tag, publicKey: publicKey, algorithm: algorithm)
    }

    /// Removes the key pair `tag` (both halves); returns whether there was one.
    @discardableResult
    public func removeKeyPair(tag: String) throws(KeychainError) -> Bool {
        let removedPrivate = try remove(ItemQuery<SecKey>.privateKey(for: tag))
        let removedPublic = try remove(ItemQuery<SecKey>.publicKey(for: tag))
        return removedPrivate || removedPublic
    }

    /// Removes the identity `label` and the chain stored beside it; returns whether there was one.
    @discardableResult
    public func removeIdentity(label: String) throws(KeychainError) -> Bool {
        let removed = try remove(.identity(for: label))
        var index = 1
        while index <= CertificateBundle.maximumCertificates, try remove(.chainCertificate(label, index)) {
            index += 1
        }
        return removed || index > 1
    }

    /// Stores an identity with its chain in one call (from `PKCS12.import(_:passphrase:)`, or an enrollment): the
    /// identity under `label`, each chain certificate under `label.chain.N`. With `replacing`, an existing identity
    /// and chain are replaced in place (the identity is never missing in between) and chain entries the new chain
    /// no longer has are removed.
    public func store(_ imported: PKCS12Identity, label: String, replacing: Bool = false) throws(KeychainError) {
        let identity = try DigitalIdentity(certificate: imported.certificate, privateKey: imported.privateKey)
        try store(identity, query: .identity(for: label), replacing: replacing)
        for (index, certificate) in imported.chain.enumerated() {
            try store(certificate, query: .chainCertificate(label, index + 1), replacing: replacing)
        }
        guard replacing else { return }
        var stale = imported.chain.count + 1
        while stale <= CertificateBundle.maximumCertificates, try remove(.chainCertificate(label, stale)) {
            stale += 1
        }
    }

    /// The identity `label` with the chain stored beside it, or nil when there is none.
    public func chainedIdentity(for label: String) throws(KeychainError) -> PKCS12Identity? {
        guard let identity = try retrieve(.identity(for: label)) else { return nil }
        var chain: [Certificate] = []
        while chain.count < CertificateBundle.maximumCertificates,
            let next = try retrieve(.chainCertificate(label, chain.count + 1), as: Certificate.self)
        {
            chain.append(next)
        }
        do {
            return try PKCS12Identity(certificate: identity.certificate, chain: chain, privateKey: identity.privateKey)
        } catch {
            throw KeychainError(.invalidParameters, error.message)
        }
    }
}

extension ItemQuery where Class == SecCertificate {
    /// The `index`th (from 1) chain certificate stored beside the identity `label`.
    static func chainCertificate(_ label: String, _ index: Int) -> Self { .certificate(for: "\(label).chain.\(index)") }
}
