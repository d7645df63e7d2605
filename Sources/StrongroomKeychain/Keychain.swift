// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import X509

/// Typed secure items on any backend, in the spirit of SwiftSecurity.
///
/// ```swift
/// let keychain = try Keychain.encryptedFile(at: url, passphrase: passphrase)   // or .inMemory(), or Secret Service
/// try keychain.store("s3cret", query: .credential(for: "alice", service: "api.example.com"))
/// let secret: String? = try keychain.retrieve(.credential(for: "alice", service: "api.example.com"))
/// try keychain.store(Curve25519.Signing.PrivateKey(), query: .key(for: "signing"))
/// let key: Curve25519.Signing.PrivateKey? = try keychain.retrieve(.key(for: "signing"))
/// ```
///
/// `retrieve` returns nil when there is no such item and throws ``KeychainError`` for anything else. Values go in
/// through conversion protocols (``KeychainDataConvertible``, ``KeychainKeyConvertible``,
/// ``KeychainCertificateConvertible``, ``KeychainIdentityConvertible``), so a key cannot be stored as a password by accident and
/// a value is never read back as another type.
public final class Keychain: Sendable {
    /// Where the items live.
    public let backend: any KeychainBackend

    /// A keychain over `backend`.
    public init(backend: any KeychainBackend) {
        self.backend = backend
    }

    /// The encrypted-file keychain at `url`, unlocked: opened when it exists, created (mode 0600) when it does not.
    ///
    /// - Throws: ``KeychainError/Code/wrongPassphrase`` for an existing file the passphrase does not open,
    ///   ``KeychainError/Code/corrupted``, ``KeychainError/Code/io``.
    public static func encryptedFile(
        at url: URL,
        passphrase: String,
        parameters: Argon2id.Parameters = .moderate
    ) throws(KeychainError) -> Keychain {
        if FileManager.default.fileExists(atPath: url.path) {
            return Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: passphrase))
        }
        return Keychain(
            backend: try EncryptedFileBackend.create(at: url, passphrase: passphrase, parameters: parameters)
        )
    }

    /// A keychain in memory (tests): unlocked unless a passphrase is given.
    public static func inMemory(passphrase: String? = nil) -> Keychain {
        Keychain(backend: InMemoryBackend(passphrase: passphrase))
    }

    // MARK: Passwords

    /// Stores a secret as a generic or internet password.
    ///
    /// - Parameters:
    ///   - value: the secret.
    ///   - query: the item's identity and attributes.
    ///   - accessPolicy: when the item may be read.
    ///   - replacing: when true, an existing item with this identity is replaced (its creation date kept) in the
    ///     same step, under one lock; when false (the default) an existing item is
    ///     ``KeychainError/Code/duplicateItem``.
    public func store<Class: PasswordClass>(
        _ value: some KeychainDataConvertible,
        query: ItemQuery<Class>,
        accessPolicy: AccessPolicy = .default,
        replacing: Bool = false
    ) throws(KeychainError) {
        try put(
            StoredValue(kind: "data", bytes: value.keychainData),
            query: query,
            policy: accessPolicy,
            mode: replacing ? .upsert : .add
        )
    }

    /// Stores many generic passwords at once (at most ``KeychainStoreOperation/batchLimit``): in the encrypted
    /// file one durable write for all of them, and none stored when one fails (an existing identity without
    /// `replacing`, for one); other backends store them one by one. `replacing` as for one item.
    public func store<Value: KeychainDataConvertible>(
        contentsOf entries: [(value: Value, query: ItemQuery<GenericPassword>)],
        accessPolicy: AccessPolicy = .default,
        replacing: Bool = false
    ) throws(KeychainError) {
        try KeychainStoreOperation.checkBatch(count: entries.count)
        var operations: [KeychainStoreOperation] = []
        operations.reserveCapacity(entries.count)
        for entry in entries {
            operations.append(
                try operation(
                    StoredValue(kind: "data", bytes: entry.value.keychainData),
                    query: entry.query,
                    policy: accessPolicy,
                    mode: replacing ? .upsert : .add
                )
            )
        }
        try backend.store(contentsOf: operations)
    }

    /// Replaces the secret of an existing generic or internet password (its creation date is kept).
    public func update<Class: PasswordClass>(
        _ value: some KeychainDataConvertible,
        query: ItemQuery<Class>
    ) throws(KeychainError) {
        try put(StoredValue(kind: "data", bytes: value.keychainData), query: query, policy: nil)
    }

    /// A generic or internet password, or nil when there is none.
    public func retrieve<Value: KeychainDataConvertible, Class: PasswordClass>(
        _ query: ItemQuery<Class>,
        as type: Value.Type = Value.self
    ) throws(KeychainError) -> Value? {
        guard let value = try get(query, kind: "data") else { return nil }
        return try Value(keychainData: value)
    }

    // MARK: Keys, certificates, identities

    /// Stores a key.
    public func store<Key: KeychainKeyConvertible>(
        _ key: Key,
        query: ItemQuery<SecKey>,
        accessPolicy: AccessPolicy = .default
    ) throws(KeychainError) {
        // A private key never goes to a public key's slot (`.publicKey(for:)`, `.key(for:descriptor: .ecPublicKey)`),
        // where a caller would take it for something safe to hand out.
        if query["keyClass"] == KeyClass.public.rawValue, let attributes = key.keychainKeyAttributes,
            attributes.keyClass != .public
        {
            throw KeychainError(
                .invalidParameters,
                "a \(attributes.keyClass.rawValue) key cannot be stored as a public key"
            )
        }
        try put(
            StoredValue(
                kind: "key." + Key.keychainKeyKind,
                bytes: key.keychainKeyData,
                attributes: key.keychainKeyAttributes?.stored ?? [:]
            ),
            query: query,
            policy: accessPolicy
        )
    }

    /// A key of type `Key`, or nil when there is none.
    ///
    /// - Throws: ``KeychainError/Code/typeMismatch`` when the item holds another kind of key.
    public func retrieve<Key: KeychainKeyConvertible>(
        _ query: ItemQuery<SecKey>,
        as type: Key.Type = Key.self
    ) throws(KeychainError) -> Key? {
        guard let bytes = try get(query, kind: "key." + Key.keychainKeyKind) else { return nil }
        return try Key(keychainKeyData: bytes)
    }

    /// Stores a certificate (DER); `replacing` as for generic passwords.
    public func store(
        _ certificate: some KeychainCertificateConvertible,
        query: ItemQuery<SecCertificate>,
        accessPolicy: AccessPolicy = .default,
        replacing: Bool = false
    ) throws(KeychainError) {
        let der = try certificate.keychainCertificateDER()
        // Search attributes only: a certificate this call just encoded parses; none would leave the value stored
        // but not searchable by name.
        let attributes = (try? Certificate(keychainCertificateDER: der)).map(CertificateAttributes.of) ?? [:]
        try put(
            StoredValue(kind: "certificate", bytes: SecureBytes(copying: der), attributes: attributes),
            query: query,
            policy: accessPolicy,
            mode: replacing ? .upsert : .add
        )
    }

    /// A certificate, or nil when there is none.
    public func retrieve<Value: KeychainCertificateConvertible>(
        _ query: ItemQuery<SecCertificate>,
        as type: Value.Type = Value.self
    ) throws(KeychainError) -> Value? {
        guard let bytes = try get(query, kind: "certificate") else { return nil }
        return try Value(keychainCertificateDER: bytes.withUnsafeBytes { Array($0) })
    }

    /// Stores a digital identity (certificate and private key): ``DigitalIdentity`` or any
    /// ``KeychainIdentityConvertible`` type; `replacing` as for generic passwords.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` when the key does not match the certificate.
    public func store(
        _ identity: some KeychainIdentityConvertible,
        query: ItemQuery<SecIdentity>,
        accessPolicy: AccessPolicy = .default,
        replacing: Bool = false
    ) throws(KeychainError) {
        let checked = try DigitalIdentity(certificate: identity.certificate, privateKey: identity.privateKey)
        var attributes = CertificateAttributes.of(checked.certificate)
        if let key = checked.privateKey.keychainKeyAttributes {
            attributes["keyType"] = key.keyType.rawValue
            attributes["keySizeInBits"] = String(key.keySizeInBits)
        }
        try put(
            StoredValue(kind: "identity", bytes: try checked.stored, attributes: attributes),
            query: query,
            policy: accessPolicy,
            mode: replacing ? .upsert : .add
        )
    }

    /// A digital identity, or nil when there is none.
    public func retrieve(_ query: ItemQuery<SecIdentity>) throws(KeychainError) -> DigitalIdentity? {
        guard let bytes = try get(query, kind: "identity") else { return nil }
        return try DigitalIdentity(stored: bytes)
    }

    /// An identity as your own ``KeychainIdentityConvertible`` type, or nil when there is none.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` when the stored key no longer matches the certificate,
    ///   or whatever your type's initialiser throws.
    public func retrieve<Identity: KeychainIdentityConvertible>(
        _ query: ItemQuery<SecIdentity>,
        as type: Identity.Type = Identity.self
    ) throws(KeychainError) -> Identity? {
        guard let identity = try retrieve(query) else { return nil }
        return try Identity(certificate: identity.certificate, privateKey: identity.privateKey)
    }

    // MARK: Any class

    /// Removes the item; returns whether it existed.
    @discardableResult
    public func remove<Class>(_ query: ItemQuery<Class>) throws(KeychainError) -> Bool {
        try query.validate()
        return try backend.remove(query.identity)
    }

    /// The item's label, comment, dates and policy (never its secret), or nil when there is none.
    public func info<Class>(for query: ItemQuery<Class>) throws(KeychainError) -> ItemInfo? {
        try query.validate()
        return try backend.info(for: query.identity)
    }

    /// Every item's information, sorted by class then identity (never secrets).
    public func items() throws(KeychainError) -> [ItemInfo] {
        try backend.allItems().map { ($0.identity.canonical, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Removes every item.
    public func removeAll() throws(KeychainError) {
        try backend.removeAll()
    }

    /// Makes ``AccessPolicy/Accessibility/whenUnlocked`` items unreadable until the next ``unlock(passphrase:)``.
    public func lock() { backend.lock() }

    /// Unlocks with the passphrase.
    public func unlock(passphrase: String) throws(KeychainError) { try backend.unlock(passphrase: passphrase) }

    // MARK: Internals

    /// Stores (policy given) or updates (policy nil: keep the existing item's) a value.
    private func put<Class>(
        _ value: StoredValue,
        query: ItemQuery<Class>,
        policy: AccessPolicy?,
        mode: KeychainStoreMode = .add
    ) throws(KeychainError) {
        let operation = try operation(value, query: query, policy: policy, mode: mode)
        try backend.store(
            operation.item,
            policy: operation.policy,
            mode: operation.mode,
            authentication: operation.authentication
        )
    }

    /// The backend operation that stores `value` for `query` (`policy` nil: update, keeping the existing policy).
    private func operation<Class>(
        _ value: StoredValue,
        query: ItemQuery<Class>,
        policy: AccessPolicy?,
        mode: KeychainStoreMode
    ) throws(KeychainError) -> KeychainStoreOperation {
        try query.validate()
        try policy?.validate()
        let now = Date()
        var created = now
        var effective = policy ?? .default
        if policy == nil {
            guard let existing = try backend.info(for: query.identity) else {
                throw KeychainError(.invalidParameters, "there is no such item to update")
            }
            created = existing.creationDate
            effective = AccessPolicy(storedForm: existing.accessPolicy) ?? .default
        }
        let info = ItemInfo(
            identity: query.identity,
            label: query.label,
            comment: query.comment,
            creationDate: created,
            modificationDate: now,
            accessPolicy: effective.storedForm,
            valueKind: value.kind,
            attributes: value.attributes
        )
        return KeychainStoreOperation(
            KeychainItem(info: info, secret: value.bytes),
            policy: effective,
            mode: policy == nil ? .update : mode,
            authentication: query.authenticationContext
        )
    }

    /// The secret of the item, checked to be of `kind`.
    private func get<Class>(_ query: ItemQuery<Class>, kind: String) throws(KeychainError) -> SecureBytes? {
        try query.validate()
        guard let item = try backend.item(for: query.identity, authentication: query.authenticationContext) else {
            return nil
        }
        guard item.info.valueKind == kind else {
            throw KeychainError(.typeMismatch, "the item holds \(item.info.valueKind), not \(kind)")
        }
        return item.secret
    }
}
