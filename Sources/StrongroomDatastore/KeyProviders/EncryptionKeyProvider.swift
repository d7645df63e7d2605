// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Supplies a datastore's key when it is opened (CDTDatastore's `CDTEncryptionKeyProvider`).
///
/// - Important: Unlike CDTDatastore, a provider that returns nil does **not** give an unencrypted datastore:
///   ``DatastoreManager/datastore(named:keyProvider:mode:)`` fails with ``DatastoreError/Code/keyRequired``. Open an
///   unencrypted datastore explicitly with ``DatastoreManager/datastore(named:mode:)``.
public protocol EncryptionKeyProvider: Sendable {
    /// The key, or nil when none is available (an error for the caller, never "unencrypted").
    func encryptionKey() async throws -> EncryptionKey?
}

/// A provider for a key the caller already holds (CDTDatastore's `CDTEncryptionKeySimpleProvider`).
public struct SimpleKeyProvider: EncryptionKeyProvider {
    private let key: EncryptionKey

    /// Provides `key`.
    public init(key: EncryptionKey) { self.key = key }

    public func encryptionKey() async throws -> EncryptionKey? { key }
}
