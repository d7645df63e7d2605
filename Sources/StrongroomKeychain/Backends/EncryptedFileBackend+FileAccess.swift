// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import Synchronization

/// Reading and writing the keychain file: snapshots under the file lock, and the keys the unlocked state holds.
extension EncryptedFileBackend {
    /// Runs `body` on the current document under the file lock; when exclusive, writes the document back if
    /// `body` changed it (a new generation).
    @discardableResult
    func withDocument<R>(
        exclusive: Bool,
        _ body: (inout KeychainDocument) throws(KeychainError) -> R
    ) throws(KeychainError) -> R {
        try withDocument(exclusive: exclusive) { document, _ throws(KeychainError) in try body(&document) }
    }

    /// Runs `body` on the current document and its item positions by ID under the file lock; when exclusive,
    /// writes the document back if `body` changed it (a new generation). `body` keeps the positions in step with
    /// the items it appends.
    @discardableResult
    func withDocument<R>(
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
    func readSnapshot() throws(KeychainError) -> Snapshot {
        if let stamp = AtomicFile.stamp(url.path), let snapshot = state.withLock({ $0.snapshot }),
            snapshot.stamp == stamp
        {
            return snapshot
        }
        return try lockFile.withLock(exclusive: false) { () throws(KeychainError) in try current() }
    }

    /// The document on disk, parsed again only when the file changed.
    func current() throws(KeychainError) -> Snapshot {
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

    static func replace(_ state: inout State, with snapshot: Snapshot) {
        state.snapshot = snapshot
        state.infos = [:]
    }

    /// The opened information of `sealed`, from the cache of `snapshot`'s informations when it is there.
    func openedInfo(
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

    static func write(_ document: KeychainDocument, to url: URL) throws(KeychainError) {
        let data = try document.encoded()
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(data, to: url.path)
        } catch {
            throw KeychainError(.io, error.message)
        }
    }

    func keys() throws(KeychainError) -> Keys {
        guard let keys = state.withLock({ $0.keys }) else { throw KeychainError(.locked, "the keychain is locked") }
        return keys.opened()
    }

    /// The key that seals secrets of `policy`; `userPresence` items need the passphrase again, every time.
    func secretKey(
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
}
