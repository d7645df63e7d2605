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

/// How ``KeychainBackend/store(_:policy:mode:authentication:)`` treats an existing item with the same identity.
public enum KeychainStoreMode: Sendable, Hashable {
    /// Add a new item; an existing one is ``KeychainError/Code/duplicateItem``.
    case add
    /// Replace an existing item; a missing one is ``KeychainError/Code/invalidParameters``.
    case update
    /// Add, or replace an existing item keeping its creation date, in one step under one lock.
    case upsert
}

/// One item of a batch store (``KeychainBackend/store(contentsOf:)``).
public struct KeychainStoreOperation: Sendable {
    /// How many items one batch may hold.
    public static let batchLimit = 65_536

    /// The item.
    public var item: KeychainItem
    /// Its access policy.
    public var policy: AccessPolicy
    /// What to do when an item with its identity exists.
    public var mode: KeychainStoreMode
    /// The passphrase again, for ``AccessPolicy/Options/userPresence`` items.
    public var authentication: AuthenticationContext?

    /// Refuses a batch of more than ``batchLimit`` items.
    package static func checkBatch(count: Int) throws(KeychainError) {
        guard count <= batchLimit else {
            throw KeychainError(.invalidParameters, "at most \(batchLimit) items can be stored at once")
        }
    }

    /// One store of `item` under `policy`.
    public init(
        _ item: KeychainItem,
        policy: AccessPolicy,
        mode: KeychainStoreMode,
        authentication: AuthenticationContext? = nil
    ) {
        self.item = item
        self.policy = policy
        self.mode = mode
        self.authentication = authentication
    }
}

/// Where items live: the encrypted file (default), the Secret Service, or memory. ``Keychain`` validates queries
/// and converts values; a backend stores, finds and removes items and enforces lock state and access policies.
public protocol KeychainBackend: Sendable {
    /// Adds, replaces or upserts `item` according to `mode`, atomically: no other writer can come between the
    /// check for an existing item and the write.
    ///
    /// - Throws: ``KeychainError/Code/duplicateItem`` when adding an identity that exists;
    ///   ``KeychainError/Code/invalidParameters`` when updating one that does not;
    ///   ``KeychainError/Code/locked``; ``KeychainError/Code/authenticationRequired`` for a ``AccessPolicy/Options/userPresence``
    ///   item without `authentication`; ``KeychainError/Code/unsupported`` for a policy the backend cannot honour.
    func store(
        _ item: KeychainItem,
        policy: AccessPolicy,
        mode: KeychainStoreMode,
        authentication: AuthenticationContext?
    ) throws(KeychainError)

    /// Stores many items, in order, as ``store(_:policy:mode:authentication:)`` would one by one (at most
    /// ``KeychainStoreOperation/batchLimit``).
    ///
    /// The encrypted file writes them all in one durable write, or none when one fails; the default implementation
    /// (Secret Service, memory) stores them one at a time and stops at the first failure.
    func store(contentsOf operations: [KeychainStoreOperation]) throws(KeychainError)

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

extension KeychainStoreMode {
    /// Checks `exists` against the mode (the shared rule of every backend).
    package func check(exists: Bool) throws(KeychainError) {
        switch self {
        case .add where exists: throw KeychainError(.duplicateItem, "an item with this identity exists")
        case .update where !exists: throw KeychainError(.invalidParameters, "there is no such item to update")
        default: break
        }
    }
}

extension KeychainBackend {
    /// Stores the items one at a time, stopping at the first failure (backends that can write a batch at once
    /// implement it themselves).
    public func store(contentsOf operations: [KeychainStoreOperation]) throws(KeychainError) {
        try KeychainStoreOperation.checkBatch(count: operations.count)
        for operation in operations {
            try store(
                operation.item,
                policy: operation.policy,
                mode: operation.mode,
                authentication: operation.authentication
            )
        }
    }

    /// The information of one item, by listing them all (backends with a direct lookup implement it themselves).
    public func info(for identity: ItemIdentity) throws(KeychainError) -> ItemInfo? {
        try allItems().first { $0.identity == identity }
    }
}
