// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomCrypto
public import StrongroomKeychain

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A key provider that keeps the datastore's data key in a Strongroom `Keychain`, wrapped under
/// a password (CDTDatastore's `CDTEncryptionKeychainProvider`, without its weaknesses).
///
/// The first ``encryptionKey()`` generates a random 256-bit data key and stores it as a generic password (service
/// `strongroom.datastore.key`, account `identifier`), sealed with XChaCha20-Poly1305 under a key derived from the
/// password with Argon2id — not PBKDF2-SHA1 and unauthenticated CBC. Later calls unwrap it; a wrong password is
/// ``DatastoreError/Code/wrongPassword``. ``changePassword(to:)`` re-wraps the same data key, so the datastore is
/// not touched. The password is held in a buffer that is wiped when the provider is released.
///
/// ```swift
/// let provider = KeychainKeyProvider(password: password, identifier: "notes", keychain: keychain)
/// let store = try await manager.datastore(named: "notes", keyProvider: provider)
/// ```
///
/// Without a password (``init(identifier:keychain:)``) the data key is a keychain item of its own (service
/// `strongroom.datastore.keychain-key`), protected by the keychain alone: one secret and one key derivation (the
/// keychain's) per open instead of two — none when `strongroom agent` holds the unlocked keychain.
public struct KeychainKeyProvider: EncryptionKeyProvider {
    /// The keychain service under which wrapped keys are stored.
    public static let service = "strongroom.datastore.key"
    /// The keychain service under which keys protected by the keychain alone are stored.
    public static let keychainOnlyService = "strongroom.datastore.keychain-key"

    private let password: SecureBytes?
    private let identifier: String
    private let keychain: Keychain
    private let parameters: Argon2id.Parameters

    /// A provider for the key named `identifier` in `keychain`.
    ///
    /// - Parameters:
    ///   - password: the password the data key is wrapped under (kept in a wiped buffer, not as a `String`).
    ///   - identifier: names the key in the keychain (the item's account), one per datastore or group of them.
    ///   - keychain: the Strongroom keychain that stores the wrapped key.
    ///   - parameters: the Argon2id cost for new wraps (libsodium's `moderate` by default: about a second and
    ///     256 MiB; `interactive` for faster opens). Existing records keep their recorded cost.
    public init(
        password: String,
        identifier: String,
        keychain: Keychain,
        parameters: Argon2id.Parameters = .moderate
    ) {
        var utf8 = Array(password.utf8)
        self.password = SecureBytes(copying: utf8)
        Wipe.bytes(&utf8)
        self.identifier = identifier
        self.keychain = keychain
        self.parameters = parameters
    }

    /// A provider whose data key, named `identifier`, is kept in `keychain` unwrapped: the keychain's own
    /// encryption (its passphrase, or the platform's keychain) is its only protection.
    public init(identifier: String, keychain: Keychain) {
        self.password = nil
        self.identifier = identifier
        self.keychain = keychain
        self.parameters = .moderate
    }

    /// The data key: unwrapped from the keychain, or generated and stored on first use.
    ///
    /// - Throws: ``DatastoreError/Code/wrongPassword``; ``DatastoreError/Code/storage`` when the keychain fails or
    ///   its record is damaged.
    public func encryptionKey() async throws -> EncryptionKey? {
        try await dataKey()
    }

    /// Re-wraps the data key under `newPassword` (a fresh salt and nonce). The datastore is not touched; the old
    /// password stops working. Use a new provider with the new password afterwards.
    ///
    /// - Throws: ``DatastoreError/Code/wrongPassword`` when this provider's password is wrong;
    ///   ``DatastoreError/Code/notFound`` when no key is stored yet.
    public func changePassword(to newPassword: String) async throws(DatastoreError) {
        guard let password else {
            throw DatastoreError(.invalidArgument, "this data key is kept by the keychain alone: it has no password")
        }
        let (identifier, parameters, query) = (identifier, parameters, query)
        try await run { keychain throws(DatastoreError) in
            guard let record = try Self.read(query, from: keychain) else {
                throw DatastoreError(.notFound, "no datastore key is stored under this identifier")
            }
            let key = try record.unwrap(password: password, identifier: identifier)
            var utf8 = Array(newPassword.utf8)
            defer { Wipe.bytes(&utf8) }
            let rewrapped = try Self.wrap(key, SecureBytes(copying: utf8), identifier, parameters)
            try Self.write(rewrapped, query, to: keychain, replacing: true)
        }
    }

    private var query: ItemQuery<GenericPassword> { .credential(for: identifier, service: Self.service) }

    private var keychainOnlyQuery: ItemQuery<GenericPassword> {
        .credential(for: identifier, service: Self.keychainOnlyService)
    }

    private func dataKey() async throws(DatastoreError) -> EncryptionKey {
        guard let password else { return try await keychainOnlyKey() }
        let (identifier, parameters, query) = (identifier, parameters, query)
        return try await run { keychain throws(DatastoreError) in
            if let record = try Self.read(query, from: keychain) {
                return try record.unwrap(password: password, identifier: identifier)
            }
            let key = EncryptionKey.random()
            let record = try Self.wrap(key, password, identifier, parameters)
            do throws(DatastoreError) {
                try Self.write(record, query, to: keychain, replacing: false)
                return key
            } catch let error where (error.underlying as? KeychainError)?.code == .duplicateItem {
                // Another provider stored a key first: that one is the datastore's key.
                guard let stored = try Self.read(query, from: keychain) else { throw error }
                return try stored.unwrap(password: password, identifier: identifier)
            }
        }
    }

    /// The key kept by the keychain alone, generated and stored on first use — unless a password-wrapped key of
    /// this identifier exists, which is refused rather than shadowed by a new key.
    private func keychainOnlyKey() async throws(DatastoreError) -> EncryptionKey {
        let (query, wrappedQuery) = (keychainOnlyQuery, query)
        return try await run { keychain throws(DatastoreError) in
            if let stored = try Self.readKey(query, from: keychain) { return stored }
            if try Self.read(wrappedQuery, from: keychain) != nil {
                throw DatastoreError(
                    .wrongPassword,
                    "this datastore's key is wrapped under a password: open it with the password"
                )
            }
            let key = EncryptionKey.random()
            do {
                try keychain.store(key.bytes, query: query, replacing: false)
                return key
            } catch let error as KeychainError where error.code == .duplicateItem {
                // Another provider stored a key first: that one is the datastore's key.
                guard let stored = try Self.readKey(query, from: keychain) else {
                    throw DatastoreError(.storage, "the keychain could not store the datastore key", underlying: error)
                }
                return stored
            } catch {
                throw DatastoreError(.storage, "the keychain could not store the datastore key", underlying: error)
            }
        }
    }

    private static func readKey(
        _ query: ItemQuery<GenericPassword>,
        from keychain: Keychain
    ) throws(DatastoreError) -> EncryptionKey? {
        let bytes: SecureBytes?
        do {
            bytes = try keychain.retrieve(query, as: SecureBytes.self)
        } catch {
            throw DatastoreError(.storage, "the keychain could not be read", underlying: error)
        }
        guard let bytes else { return nil }
        do {
            return try EncryptionKey(bytes)
        } catch {
            throw DatastoreError(.storage, "the stored datastore key is damaged", underlying: error)
        }
    }

    /// Runs keychain work and Argon2id off the cooperative pool.
    private func run<R: Sendable>(
        _ body: @escaping @Sendable (Keychain) throws(DatastoreError) -> R
    ) async throws(DatastoreError) -> R {
        let keychain = keychain
        return try await BlockingExecutor.shared.run { _ throws(DatastoreError) in try body(keychain) }
    }

    private static func read(
        _ query: ItemQuery<GenericPassword>,
        from keychain: Keychain
    ) throws(DatastoreError) -> WrappedDataKey? {
        let data: Data?
        do {
            data = try keychain.retrieve(query, as: Data.self)
        } catch {
            throw DatastoreError(.storage, "the keychain could not be read", underlying: error)
        }
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(WrappedDataKey.self, from: data)
        } catch {
            throw DatastoreError(.storage, "the stored datastore key is damaged", underlying: error)
        }
    }

    private static func wrap(
        _ key: EncryptionKey,
        _ password: SecureBytes,
        _ identifier: String,
        _ parameters: Argon2id.Parameters
    ) throws(DatastoreError) -> WrappedDataKey {
        do {
            return try WrappedDataKey.wrap(key, password: password, identifier: identifier, parameters: parameters)
        } catch {
            throw DatastoreError(.invalidKey, "the data key could not be wrapped", underlying: error)
        }
    }

    private static func write(
        _ record: WrappedDataKey,
        _ query: ItemQuery<GenericPassword>,
        to keychain: Keychain,
        replacing: Bool
    ) throws(DatastoreError) {
        do {
            try keychain.store(try JSONEncoder().encode(record), query: query, replacing: replacing)
        } catch {
            throw DatastoreError(.storage, "the keychain could not store the datastore key", underlying: error)
        }
    }
}
