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
    private let lockFile: FileLock
    private let state = Mutex(State())

    private struct Keys {
        var index: SecureBytes
        var meta: SecureBytes
        var afterFirstUnlock: SecureBytes
        var whenUnlocked: SecureBytes?
    }

    /// The parsed file of one stamp, with each item's position by ID.
    private struct Snapshot {
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

    private struct State {
        var keys: Keys?
        var snapshot: Snapshot?
        /// Opened item information of the current snapshot, by item ID (labels and dates, never secrets).
        var infos: [String: ItemInfo] = [:]
        /// Item IDs (an HMAC each) by identity, under the current keys.
        var itemIDs: [ItemIdentity: String] = [:]
    }

    /// How many opened informations and item IDs are kept before the caches start over.
    private static let cacheLimit = 65_536

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
            state.keys = try deriveKeys(dataKey, storeID: storeID)
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
            $0.keys = keys
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
    private func sealAll(
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
    private func seal(
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

    // MARK: File access

    /// Runs `body` on the current document under the file lock; when exclusive, writes the document back if
    /// `body` changed it (a new generation).
    @discardableResult
    private func withDocument<R>(
        exclusive: Bool,
        _ body: (inout KeychainDocument) throws(KeychainError) -> R
    ) throws(KeychainError) -> R {
        try withDocument(exclusive: exclusive) { document, _ throws(KeychainError) in try body(&document) }
    }

    /// Runs `body` on the current document and its item positions by ID under the file lock; when exclusive,
    /// writes the document back if `body` changed it (a new generation). `body` keeps the positions in step with
    /// the items it appends.
    @discardableResult
    private func withDocument<R>(
        exclusive: Bool,
        _ body: (inout KeychainDocument, inout [String: Int]) throws(KeychainError) -> R
    ) throws(KeychainError) -> R {
        try lockFile.withLock(exclusive: exclusive) { () throws(KeychainError) -> R in
            let original = try current()
            var document = original.document
            var positions = original.positions
            let result = try body(&document, &positions)
            if exclusive, document != original.document {
                document.generation = original.document.generation + 1
                try Self.write(document, to: url)
                if let stamp = AtomicFile.stamp(url.path) {
                    let snapshot = Snapshot(stamp: stamp, document: document)
                    state.withLock { Self.replace(&$0, with: snapshot) }
                }
            }
            return result
        }
    }

    /// The snapshot of the file as it is now: from memory when the file's stamp has not changed (one `stat`, no
    /// lock), otherwise read again under the shared lock. Writers replace the file by renaming a complete one into
    /// place, so a stamp always names one whole document.
    private func readSnapshot() throws(KeychainError) -> Snapshot {
        if let stamp = AtomicFile.stamp(url.path), let snapshot = state.withLock({ $0.snapshot }),
            snapshot.stamp == stamp
        {
            return snapshot
        }
        return try lockFile.withLock(exclusive: false) { () throws(KeychainError) in try current() }
    }

    /// The document on disk, parsed again only when the file changed.
    private func current() throws(KeychainError) -> Snapshot {
        guard let stamp = AtomicFile.stamp(url.path) else {
            throw KeychainError(.io, "there is no keychain at \(url.path)")
        }
        if let cached = state.withLock({ $0.snapshot }), cached.stamp == stamp { return cached }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw KeychainError(.io, "the keychain file could not be read")
        }
        let snapshot = Snapshot(stamp: stamp, document: try KeychainDocument.decode(data))
        state.withLock { Self.replace(&$0, with: snapshot) }
        return snapshot
    }

    private static func replace(_ state: inout State, with snapshot: Snapshot) {
        state.snapshot = snapshot
        state.infos = [:]
    }

    /// The opened information of `sealed`, from the cache of `snapshot`'s informations when it is there.
    private func openedInfo(
        _ sealed: KeychainDocument.SealedItem,
        _ keys: Keys,
        _ snapshot: Snapshot
    ) throws(KeychainError) -> ItemInfo {
        if let info = state.withLock({ $0.snapshot?.stamp == snapshot.stamp ? $0.infos[sealed.id] : nil }) {
            return info
        }
        let info = try Self.openInfo(sealed, keys, snapshot.document.storeID)
        state.withLock {
            guard $0.snapshot?.stamp == snapshot.stamp else { return }
            if $0.infos.count >= Self.cacheLimit { $0.infos = [:] }
            $0.infos[sealed.id] = info
        }
        return info
    }

    private static func write(_ document: KeychainDocument, to url: URL) throws(KeychainError) {
        let data = try document.encoded()
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(data, to: url.path)
        } catch {
            throw KeychainError(.io, error.message)
        }
    }

    private func keys() throws(KeychainError) -> Keys {
        guard let keys = state.withLock({ $0.keys }) else { throw KeychainError(.locked, "the keychain is locked") }
        return keys
    }

    /// The key that seals secrets of `policy`; `userPresence` items need the passphrase again, every time.
    private func secretKey(
        _ policy: AccessPolicy,
        _ keys: Keys,
        _ document: KeychainDocument,
        _ authentication: AuthenticationContext?
    ) throws(KeychainError) -> SecureBytes {
        if policy.requiresUserPresence {
            guard let authentication else {
                throw KeychainError(.authenticationRequired, "this item needs the passphrase again")
            }
            let dataKey = try Self.unwrap(document, passphrase: authentication.passphrase)
            return try Self.derive(dataKey, document.storeID, "user-presence")
        }
        switch policy.accessibility {
        case .afterFirstUnlock:
            return keys.afterFirstUnlock
        case .whenUnlocked:
            guard let key = keys.whenUnlocked else {
                throw KeychainError(.locked, "the keychain is locked for whenUnlocked items")
            }
            return key
        }
    }

    // MARK: Cryptography

    private static func makeSlot(
        dataKey: SecureBytes,
        passphrase: String,
        parameters: Argon2id.Parameters,
        storeID: String
    ) throws(KeychainError) -> KeychainDocument.Slot {
        let kdf = KeychainDocument.KDF(
            iterations: parameters.iterations,
            memoryBytes: parameters.memoryBytes,
            salt: SecureRandom.data(count: Argon2id.saltByteCount)
        )
        let id = UUID().uuidString.lowercased()
        let kek = try passphraseKey(passphrase, kdf)
        return KeychainDocument.Slot(id: id, kdf: kdf, wrappedKey: try seal(dataKey, kek, slotAAD(storeID, id, kdf)))
    }

    private static func passphraseKey(
        _ passphrase: String,
        _ kdf: KeychainDocument.KDF
    ) throws(KeychainError)
        -> SecureBytes
    {
        guard kdf.algorithm == "argon2id13" else { throw KeychainError(.corrupted, "unknown KDF \(kdf.algorithm)") }
        do {
            // deriveKey validates the stored parameters against Argon2id.Parameters.maximum (a hostile file cannot
            // make opening it take unbounded time or memory).
            return try Argon2id.deriveKey(fromPassword: passphrase, salt: kdf.salt, parameters: kdf.parameters)
        } catch {
            throw KeychainError(.invalidParameters, "the key-derivation parameters are refused: \(error.message)")
        }
    }

    private static func slotAAD(_ storeID: String, _ slotID: String, _ kdf: KeychainDocument.KDF) -> Data {
        Data(
            "strongroom.keychain.v1 slot|\(storeID)|\(slotID)|\(kdf.algorithm)|\(kdf.iterations)|\(kdf.memoryBytes)|\(kdf.salt.base64EncodedString())"
                .utf8
        )
    }

    /// The data key from the first slot `passphrase` opens.
    private static func unwrap(_ document: KeychainDocument, passphrase: String) throws(KeychainError) -> SecureBytes {
        try openSlot(document, passphrase: passphrase).dataKey
    }

    /// The first slot `passphrase` opens and its data key (one Argon2id derivation per slot tried).
    private static func openSlot(
        _ document: KeychainDocument,
        passphrase: String
    ) throws(KeychainError) -> (index: Int, dataKey: SecureBytes) {
        for (index, slot) in document.slots.enumerated() {
            do {
                try slot.kdf.parameters.validate()
            } catch {
                throw KeychainError(
                    .invalidParameters,
                    "a slot's key-derivation parameters are refused: \(error.message)"
                )
            }
            if let key = open(slot, passphrase: passphrase, storeID: document.storeID) { return (index, key) }
        }
        throw KeychainError(.wrongPassphrase, "the passphrase does not open this keychain")
    }

    private static func open(_ slot: KeychainDocument.Slot, passphrase: String, storeID: String) -> SecureBytes? {
        guard let kek = try? passphraseKey(passphrase, slot.kdf) else { return nil }
        return try? XChaCha20Poly1305.open(
            slot.wrappedKey,
            key: kek,
            associatedData: slotAAD(storeID, slot.id, slot.kdf)
        )
    }

    private static func deriveKeys(_ dataKey: SecureBytes, storeID: String) throws(KeychainError) -> Keys {
        Keys(
            index: try derive(dataKey, storeID, "index"),
            meta: try derive(dataKey, storeID, "meta"),
            afterFirstUnlock: try derive(dataKey, storeID, "after-first-unlock"),
            whenUnlocked: try derive(dataKey, storeID, "when-unlocked")
        )
    }

    private static func derive(
        _ dataKey: SecureBytes,
        _ storeID: String,
        _ purpose: String
    ) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try HKDFSHA256.deriveKey(
                from: dataKey,
                salt: Data(storeID.utf8),
                label: "strongroom.keychain.v1 \(purpose)"
            )
        } catch {
            throw KeychainError(.invalidParameters, "a subkey could not be derived")
        }
    }

    /// The item ID of `identity` (an HMAC of its canonical form under the index key), remembered per identity.
    private func itemID(_ identity: ItemIdentity, _ keys: Keys) -> String {
        if let id = state.withLock({ $0.itemIDs[identity] }) { return id }
        let mac = keys.index.withUnsafeBytes { key in
            HMAC<SHA256>.authenticationCode(for: Data(identity.canonical.utf8), using: SymmetricKey(data: key))
        }
        let id = Base64URL.encode(Data(mac))
        state.withLock {
            if $0.itemIDs.count >= Self.cacheLimit { $0.itemIDs = [:] }
            $0.itemIDs[identity] = id
        }
        return id
    }

    private static func aad(_ storeID: String, _ id: String, _ policy: String, _ part: String) -> Data {
        Data("strongroom.keychain.v1 item|\(storeID)|\(id)|\(policy)|\(part)".utf8)
    }

    private static func seal(_ plaintext: SecureBytes, _ key: SecureBytes, _ aad: Data) throws(KeychainError) -> Data {
        do {
            return try XChaCha20Poly1305.seal(plaintext, key: key, associatedData: aad)
        } catch {
            throw KeychainError(.invalidParameters, "an item could not be sealed")
        }
    }

    private static func open(_ sealed: Data, _ key: SecureBytes, _ aad: Data) throws(KeychainError) -> SecureBytes {
        do {
            return try XChaCha20Poly1305.open(sealed, key: key, associatedData: aad)
        } catch {
            throw KeychainError(.tampered, "an item does not authenticate: altered, or sealed under another identity")
        }
    }

    /// One encoder for every item's information (JSONEncoder is thread-safe once configured).
    private static let infoEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    private static func encodeInfo(_ info: ItemInfo) throws(KeychainError) -> SecureBytes {
        guard let data = try? infoEncoder.encode(info) else {
            throw KeychainError(.io, "item information could not be encoded")
        }
        return SecureBytes(copying: data)
    }

    private static func openInfo(
        _ sealed: KeychainDocument.SealedItem,
        _ keys: Keys,
        _ storeID: String
    ) throws(KeychainError)
        -> ItemInfo
    {
        let plain = try open(sealed.meta, keys.meta, aad(storeID, sealed.id, sealed.policy, "meta"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let info = plain.withUnsafeBytes({ try? decoder.decode(ItemInfo.self, from: Data($0)) }) else {
            throw KeychainError(.tampered, "an item's information does not decode")
        }
        return info
    }
}
