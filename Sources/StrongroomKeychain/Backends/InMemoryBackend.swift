// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Synchronization

/// Items in process memory, for tests of code that uses the keychain. It behaves like the file backend: lock
/// state, access policies and errors are the same; nothing is written anywhere.
public final class InMemoryBackend: KeychainBackend {
    private struct Entry {
        var item: KeychainItem
        var policy: AccessPolicy
    }

    private struct State {
        var items: [ItemIdentity: Entry] = [:]
        var unlocked: Bool
        var firstUnlocked: Bool
    }

    private let passphrase: SecureBytes?
    private let state: Mutex<State>

    /// A store; with a `passphrase` it starts locked and ``AccessPolicy/Options/userPresence`` items need it again,
    /// without one it starts unlocked and refuses `userPresence`.
    public init(passphrase: String? = nil) {
        self.passphrase = passphrase.map { SecureBytes(copying: Array($0.utf8)) }
        self.state = Mutex(State(unlocked: passphrase == nil, firstUnlocked: passphrase == nil))
    }

    public func store(
        _ item: KeychainItem,
        policy: AccessPolicy,
        mode: KeychainStoreMode,
        authentication: AuthenticationContext?
    ) throws(KeychainError) {
        try checkPresence(policy, authentication)
        try state.withLock { state throws(KeychainError) in
            try Self.checkLock(policy, state)
            let existing = state.items[item.info.identity]
            try mode.check(exists: existing != nil)
            var item = item
            if mode == .upsert, let existing { item.info.creationDate = existing.item.info.creationDate }
            state.items[item.info.identity] = Entry(item: item, policy: policy)
        }
    }

    public func item(
        for identity: ItemIdentity,
        authentication: AuthenticationContext?
    ) throws(KeychainError)
        -> KeychainItem?
    {
        let entry = try state.withLock { state throws(KeychainError) -> Entry? in
            guard state.firstUnlocked else { throw KeychainError(.locked, "the keychain is locked") }
            guard let entry = state.items[identity] else { return nil }
            try Self.checkLock(entry.policy, state)
            return entry
        }
        guard let entry else { return nil }
        try checkPresence(entry.policy, authentication)
        return entry.item
    }

    public func allItems() throws(KeychainError) -> [ItemInfo] {
        try state.withLock { state throws(KeychainError) in
            guard state.firstUnlocked else { throw KeychainError(.locked, "the keychain is locked") }
            return state.items.values.map(\.item.info)
        }
    }

    public func remove(_ identity: ItemIdentity) throws(KeychainError) -> Bool {
        state.withLock { $0.items.removeValue(forKey: identity) != nil }
    }

    public func removeAll() throws(KeychainError) {
        state.withLock { $0.items.removeAll() }
    }

    public func lock() {
        guard passphrase != nil else { return }
        state.withLock { $0.unlocked = false }
    }

    public func unlock(passphrase given: String) throws(KeychainError) {
        guard let passphrase else { return }
        guard SecureBytes(copying: Array(given.utf8)) == passphrase else {  // constant time
            throw KeychainError(.wrongPassphrase, "the passphrase does not open this keychain")
        }
        state.withLock {
            $0.unlocked = true
            $0.firstUnlocked = true
        }
    }

    private static func checkLock(_ policy: AccessPolicy, _ state: State) throws(KeychainError) {
        let open = policy.accessibility == .afterFirstUnlock ? state.firstUnlocked : state.unlocked
        guard open else { throw KeychainError(.locked, "the keychain is locked for \(policy.accessibility) items") }
    }

    private func checkPresence(_ policy: AccessPolicy, _ authentication: AuthenticationContext?) throws(KeychainError) {
        guard policy.requiresUserPresence else { return }
        guard let passphrase else {
            throw KeychainError(.unsupported, "userPresence needs a keychain with a passphrase")
        }
        guard let authentication else {
            throw KeychainError(.authenticationRequired, "this item needs the passphrase again")
        }
        guard SecureBytes(copying: Array(authentication.passphrase.utf8)) == passphrase else {  // constant time
            throw KeychainError(.wrongPassphrase, "the passphrase is wrong")
        }
    }
}
