// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An item as backends see it: its information and the secret bytes.
public struct KeychainItem: Sendable {
    /// Identity, label, comment, dates, policy and value kind.
    public var info: ItemInfo
    /// The secret.
    public var secret: SecureBytes

    /// Pairs information and secret.
    public init(info: ItemInfo, secret: SecureBytes) {
        self.info = info
        self.secret = secret
    }
}

/// Where items live: the encrypted file (default), the Secret Service, or memory. ``Keychain`` validates queries
/// and converts values; a backend stores, finds and removes items and enforces lock state and access policies.
public protocol KeychainBackend: Sendable {
    /// Adds `item`, or replaces the existing one when `replacing` (which must then exist).
    ///
    /// - Throws: ``KeychainError/Code/duplicateItem`` when adding an identity that exists;
    ///   ``KeychainError/Code/locked``; ``KeychainError/Code/authenticationRequired`` for a ``AccessPolicy/Options/userPresence``
    ///   item without `authentication`; ``KeychainError/Code/unsupported`` for a policy the backend cannot honour.
    func store(
        _ item: KeychainItem,
        policy: AccessPolicy,
        replacing: Bool,
        authentication: AuthenticationContext?
    ) throws(KeychainError)

    /// The item with `identity` and its secret, or nil when there is none.
    func item(for identity: ItemIdentity, authentication: AuthenticationContext?) throws(KeychainError) -> KeychainItem?

    /// The information of one item (never its secret), or nil when there is none.
    func info(for identity: ItemIdentity) throws(KeychainError) -> ItemInfo?

    /// The information of every item (never secrets).
    func allItems() throws(KeychainError) -> [ItemInfo]

    /// Removes the item; returns whether it existed.
    func remove(_ identity: ItemIdentity) throws(KeychainError) -> Bool

    /// Removes every item.
    func removeAll() throws(KeychainError)

    /// Forgets the keys of ``AccessPolicy/Accessibility/whenUnlocked`` items until the next unlock.
    func lock()

    /// Unlocks with the store's passphrase.
    func unlock(passphrase: String) throws(KeychainError)
}

extension KeychainBackend {
    /// The information of one item, by listing them all (backends with a direct lookup implement it themselves).
    public func info(for identity: ItemIdentity) throws(KeychainError) -> ItemInfo? {
        try allItems().first { $0.identity == identity }
    }
}
