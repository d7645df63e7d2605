// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// A generic password as a property, read and written through a keychain (SwiftSecurity's `@Credential`, without
/// SwiftUI):
///
/// ```swift
/// struct Settings {
///     @Credential("openai", service: "api.openai.com", keychain: keychain) var apiKey: String?
/// }
/// settings.apiKey = "sk-…"   // stored (replacing the old value)
/// settings.apiKey = nil      // removed
/// ```
///
/// The property cannot throw, so reading it gives nil and writing it does nothing when the keychain fails (locked,
/// tampered, wrong type). Use the projected value to see those errors: `try $apiKey.load()`,
/// `try $apiKey.save("sk-…")`.
@propertyWrapper
public struct Credential<Value: KeychainDataConvertible>: Sendable {
    /// The item behind the property.
    public let query: ItemQuery<GenericPassword>
    /// The keychain it lives in.
    public let keychain: Keychain
    /// The policy a new item gets.
    public let accessPolicy: AccessPolicy

    /// The generic password for `account` (and `service`) in `keychain`.
    public init(
        _ account: String,
        service: String? = nil,
        keychain: Keychain,
        accessPolicy: AccessPolicy = .default
    ) {
        self.query = .credential(for: account, service: service)
        self.keychain = keychain
        self.accessPolicy = accessPolicy
    }

    /// The stored value, nil when there is none or the keychain failed; setting nil removes the item.
    public var wrappedValue: Value? {
        // The non-throwing wrapper, as documented above: `$value.load()` and `$value.save(_:)` throw.
        get { try? load() }
        nonmutating set { try? save(newValue) }
    }

    /// The wrapper itself, for the throwing ``load()`` and ``save(_:)``.
    public var projectedValue: Credential<Value> { self }

    /// The stored value, or nil when there is none.
    ///
    /// - Throws: ``KeychainError`` (locked, tampered, another type).
    public func load() throws(KeychainError) -> Value? {
        try keychain.retrieve(query, as: Value.self)
    }

    /// Stores `value` (replacing the old one in one step), or removes the item when `value` is nil.
    ///
    /// - Throws: ``KeychainError``.
    public func save(_ value: Value?) throws(KeychainError) {
        guard let value else {
            try keychain.remove(query)
            return
        }
        try keychain.store(value, query: query, accessPolicy: accessPolicy, replacing: true)
    }
}
