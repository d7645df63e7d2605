// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Dispatch
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import Synchronization

/// The default backend: one encrypted file, safe for several processes at once.
///
/// A random 256-bit data key is wrapped (XChaCha20-Poly1305) in one or more slots, each under a key derived from a
/// passphrase with Argon2id (parameters stored per slot and capped when read), so changing a passphrase re-wraps
/// the data key and leaves every item as it was. Subkeys per purpose come from HKDF: item IDs (HMAC of the
/// identity), item metadata, and one key per accessibility. Every item is sealed with associated data binding it to
/// this store, its ID and its policy, so it cannot be moved to another identity or store unnoticed. Writes are
/// atomic (temporary file, fsync, rename, folder fsync) under an exclusive `flock`; the file is mode 0600.
public final class EncryptedFileBackend: KeychainBackend {
    /// The keychain file.
    public let url: URL
    let lockFile: FileLock
    let state = Mutex(State())

    struct Keys {
        var index: SecureBytes
        var meta: SecureBytes
        var afterFirstUnlock: SecureBytes
        var whenUnlocked: SecureBytes?
    }

    /// The keys while the keychain is open: sealed in memory (``SealedSecret``) for as long as it stays unlocked,
    /// opened for one operation at a time (a few microseconds beside the file's I/O).
    struct SealedKeys {
        var index: SealedSecret
        var meta: SealedSecret
        var afterFirstUnlock: SealedSecret
        var whenUnlocked: SealedSecret?

        init(_ keys: Keys) {
            index = SealedSecret(keys.index)
            meta = SealedSecret(keys.meta)
            afterFirstUnlock = SealedSecret(keys.afterFirstUnlock)
            whenUnlocked = keys.whenUnlocked.map(SealedSecret.init)
        }

        /// Plaintext copies, wiped when the operation lets go of them.
        func opened() -> Keys {
            Keys(
                index: index.unsealed(),
                meta: meta.unsealed(),
                afterFirstUnlock: afterFirstUnlock.unsealed(),
                whenUnlocked: whenUnlocked?.unsealed()
            )
        }
    }

    /// The parsed file of one stamp, with each item's position by ID.
    struct Snapshot {
        var stamp: FileStamp
        var document: KeychainDocument
        var positions: [String: Int]

        init(stamp: FileStamp, document: KeychainDocument) {
            self.stamp = stamp
            self.document = document
            positions = Dictionary(
                document.items.enumerated().map { ($1.id, $0) },
                uniquingKeysWith: { first, _ in first }
            )
        }
    }

    struct State {
        var keys: SealedKeys?
        var snapshot: Snapshot?
        /// Opened item information of the current snapshot, by item ID (labels and dates, never secrets).
        var infos: [String: ItemInfo] = [:]
        /// Item IDs (an HMAC each) by identity, under the current keys.
        var itemIDs: [ItemIdentity: String] = [:]
    }

    /// How many opened informations and item IDs are kept before the caches start over.
    static let cacheLimit = 65_536

    private init(url: URL) {
        self.url = url
        self.lockFile = FileLock(path: url.path + ".lock")
    }

    /// Creates a new keychain file at `url` (which must not exist), unlocked.
    ///
    /// - Parameters:
    ///   - url: where the file goes.
    ///   - passphrase: what opens it.
    ///   - parameters: the Argon2id cost; `Argon2id.Parameters.moderate` (256 MiB, 3 passes) by default.
    public static func create(
        at url: URL,
        passphrase: String,
        parameters: Argon2id.Parameters = .moderate
    ) throws(KeychainError) -> EncryptedFileBackend {
        let backend = EncryptedFileBackend(url: url)
        let dataKey = SecureRandom.bytes(count: 32)
        let storeID = UUID().uuidString.lowercased()
        let slot = try makeSlot(dataKey: dataKey, passphrase: passphrase, parameters: parameters, storeID: storeID)
        let document = KeychainDocument(storeID: storeID, generation: 1, slots: [slot], items: [])
        try backend.lockFile.withLock(exclusive: true) { () throws(KeychainError) in
            guard AtomicFile.stamp(url.path) == nil else {
                throw KeychainError(.invalidParameters, "a keychain exists at \(url.path) already")
            }
            try Self.write(document, to: url)
        }
        try backend.state.withLock { state throws(KeychainError) in
            state.keys = SealedKeys(try deriveKeys(dataKey, storeID: storeID))
        }
        return backend
    }

    /// Opens an existing keychain file, locked: call ``unlock(passphrase:)`` before use.
    ///
    /// - Throws: ``KeychainError/Code/io`` when it is missing or readable by others, ``KeychainError/Code/corrupted``.
    public static func open(at url: URL) throws(KeychainError) -> EncryptedFileBackend {
        switch AtomicFile.privacy(of: url.path) {
        case .ownerOnly: break
        case .missing: throw KeychainError(.io, "there is no keychain at \(url.path)")
        case .exposed(let reason): throw KeychainError(.io, reason)
        }
        let backend = EncryptedFileBackend(url: url)
        _ = try backend.withDocument(exclusive: false) { document throws(KeychainError) in document.storeID }
        return backend
    }

    /// Opens and unlocks.
    public static func open(at url: URL, passphrase: String) throws(KeychainError) -> EncryptedFileBackend {
        let backend = try open(at: url)
        try backend.unlock(passphrase: passphrase)
        return backend
    }

    // MARK: Lock state and passphrases

    public func unlock(passphrase: String) throws(KeychainError) {
        let (dataKey, storeID) = try withDocument(exclusive: false) { document throws(KeychainError) in
            (try Self.unwrap(document, passphrase: passphrase), document.storeID)
        }
        let keys = try Self.deriveKeys(dataKey, storeID: storeID)
        state.withLock {
            $0.keys = SealedKeys(keys)
            $0.itemIDs = [:]
        }
    }

    public func lock() {
        state.withLock { $0.keys?.whenUnlocked = nil }
    }

    /// Whether ``AccessPolicy/Accessibility/whenUnlocked`` items are readable now.
    public var isUnlocked: Bool { state.withLock { $0.keys?.whenUnlocked != nil } }

    /// Replaces the passphrase of the slot it opens: only that slot is re-wrapped; items stay byte for byte.
    public func changePassphrase(
        from old: String,
        to new: String,
        parameters: Argon2id.Parameters = .moderate
    ) throws(KeychainError) {
        try withDocument(exclusive: true) { document throws(KeychainError) in
            let (index, dataKey) = try Self.openSlot(document, passphrase: old)
            document.slots[index] = try Self.makeSlot(
                dataKey: dataKey,
                passphrase: new,
                parameters: parameters,
                storeID: document.storeID
            )
        }
    }

    /// Adds another passphrase (a new slot) after proving an existing one.
    public func addPassphrase(
        _ new: String,
        authorizedBy existing: String,
        parameters: Argon2id.Parameters = .moderate
    ) throws(KeychainError) {
        try withDocument(exclusive: true) { document throws(KeychainError) in
            let dataKey = try Self.unwrap(document, passphrase: existing)
            guard document.slots.count < KeychainDocument.maximumSlots else {
                throw KeychainError(
                    .invalidParameters,
                    "a keychain holds at most \(KeychainDocument.maximumSlots) passphrases"
                )
            }
            document.slots.append(
                try Self.makeSlot(dataKey: dataKey, passphrase: new, parameters: parameters, storeID: document.storeID)
            )
        }
    }

    // MARK: Items

    public func store(
        _ item: KeychainItem,
        policy: AccessPolicy,
        mode: KeychainStoreMode,
        authentication: AuthenticationContext?
    ) throws(KeychainError) {
        try store(contentsOf: [KeychainStoreOperation(item, policy: policy, mode: mode, authentication: authentication)]
        )
    }

    /// Stores every item in one durable write: all of them or, on the first failure, none.
    public func store(contentsOf operations: [KeychainStoreOperation]) throws(KeychainError) {
        try KeychainStoreOperation.checkBatch(count: operations.count)
        guard !operations.isEmpty else { return }
        try withDocument(exclusive: true) { document, positions throws(KeychainError) in
            let keys = try self.keys()
            // Sealing is most of the work and independent per item: spread over the cores, then applied in order.
            let sealedItems = try self.sealAll(operations, keys, document)
            for (operation, var sealed) in zip(operations, sealedItems) {
                let existing = positions[sealed.id]
                try operation.mode.check(exists: existing != nil)
                if operation.mode == .upsert, let existing {
                    // Keep the creation date of the item it replaces: its information is sealed again.
                    var info = operation.item.info
                    info.creationDate =
                        try Self.openInfo(document.items[existing], keys, document.storeID).creationDate
                    sealed.meta = try Self.seal(
                        try Self.encodeInfo(info),
                        keys.meta,
                        Self.aad(document.storeID, sealed.id, sealed.policy, "meta")
                    )
                }
                if let existing {
                    document.items[existing] = sealed
                } else {
                    positions[sealed.id] = document.items.count
                    document.items.append(sealed)
                }
            }
        }
    }

    /// Every operation's item sealed (its ID, information and secret), on all cores for large batches.
    func sealAll(
        _ operations: [KeychainStoreOperation],
        _ keys: Keys,
        _ document: KeychainDocument
    ) throws(KeychainError) -> [KeychainDocument.SealedItem] {
        let count = operations.count
        let workers = count < 64 ? 1 : max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let slots = ResultSlots<KeychainDocument.SealedItem>(count: count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: count, by: workers) {
                slots.set(
                    index,
                    Result { () throws(KeychainError) in try self.seal(operations[index], keys, document) }
                )
            }
        }
        return try slots.values()
    }

    /// One operation's item sealed as it is (an upsert's creation date is fixed afterwards).
    func seal(
        _ operation: KeychainStoreOperation,
        _ keys: Keys,
        _ document: KeychainDocument
    ) throws(KeychainError) -> KeychainDocument.SealedItem {
        let id = itemID(operation.item.info.identity, keys)
        let policy = operation.policy.storedForm
        let secretKey = try secretKey(operation.policy, keys, document, operation.authentication)
        return KeychainDocument.SealedItem(
            id: id,
            policy: policy,
            meta: try Self.seal(
                try Self.encodeInfo(operation.item.info),
                keys.meta,
                Self.aad(document.storeID, id, policy, "meta")
            ),
            secret: try Self.seal(operation.item.secret, secretKey, Self.aad(document.storeID, id, policy, "secret"))
        )
    }

    public func item(
        for identity: ItemIdentity,
        authentication: AuthenticationContext?
    ) throws(KeychainError)
        -> KeychainItem?
    {
        // The read path takes no lock while the file is unchanged: one stat, then the parsed snapshot, the item's
        // opened information and its ID from memory; only the secret is opened, every time.
        let keys = try self.keys()
        let id = itemID(identity, keys)
        let snapshot = try readSnapshot()
        guard let position = snapshot.positions[id] else { return nil }
        let sealed = snapshot.document.items[position]
        guard let policy = AccessPolicy(storedForm: sealed.policy) else {
            throw KeychainError(.tampered, "the item's policy is not one this version knows")
        }
        let info = try openedInfo(sealed, keys, snapshot)
        guard info.identity == identity else {
            throw KeychainError(.tampered, "the item was sealed under another identity")
        }
        let secretKey = try self.secretKey(policy, keys, snapshot.document, authentication)
        let secret = try Self.open(
            sealed.secret,
            secretKey,
            Self.aad(snapshot.document.storeID, id, sealed.policy, "secret")
        )
        return KeychainItem(info: info, secret: secret)
    }

    public func allItems() throws(KeychainError) -> [ItemInfo] {
        let keys = try self.keys()
        let snapshot = try readSnapshot()
        var infos: [ItemInfo] = []
        infos.reserveCapacity(snapshot.document.items.count)
        for sealed in snapshot.document.items { infos.append(try openedInfo(sealed, keys, snapshot)) }
        return infos
    }

    public func info(for identity: ItemIdentity) throws(KeychainError) -> ItemInfo? {
        let keys = try self.keys()
        let id = itemID(identity, keys)
        let snapshot = try readSnapshot()
        guard let position = snapshot.positions[id] else { return nil }
        return try openedInfo(snapshot.document.items[position], keys, snapshot)
    }

    public func remove(_ identity: ItemIdentity) throws(KeychainError) -> Bool {
        try withDocument(exclusive: true) { document, _ throws(KeychainError) -> Bool in
            let id = self.itemID(identity, try self.keys())
            let before = document.items.count
            document.items.removeAll { $0.id == id }
            return document.items.count != before
        }
    }

    public func removeAll() throws(KeychainError) {
        try withDocument(exclusive: true) { document, _ throws(KeychainError) in
            _ = try self.keys()
            document.items.removeAll()
        }
    }
}
