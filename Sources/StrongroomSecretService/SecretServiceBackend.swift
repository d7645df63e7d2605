// Strongroom — SPDX-License-Identifier: Apache-2.0
import CLibSecret
import Foundation
import StrongroomCore
public import StrongroomKeychain

/// Items in the desktop's Secret Service (gnome-keyring, KWallet, KeePassXC) through libsecret.
///
/// Each item is one Secret Service item in the default collection, found by three attributes: the store name (as
/// a Valet's identifier: two stores never see each other's items), the class and the canonical identity. The
/// secret is the item's information and value; the collection's own lock (the login keyring) is the lock state,
/// so ``lock()`` and ``unlock(passphrase:)`` do nothing here and `AccessPolicy.Options.userPresence` is
/// unsupported. The Secret Service keeps lookup attributes readable to the session, by its design.
///
/// Needs a session bus and a provider; without them every call fails fast with `KeychainError.Code.io`.
public final class SecretServiceBackend: KeychainBackend {
    /// The store name every item carries.
    public let store: String

    /// A store named `store` in the default collection.
    public init(store: String = "default") {
        self.store = store
    }

    /// Whether a session bus is configured (the Secret Service may still be missing).
    public static var sessionBusAvailable: Bool {
        ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"].map { !$0.isEmpty } ?? false
    }

    public func store(
        _ item: KeychainItem,
        policy: AccessPolicy,
        mode: KeychainStoreMode,
        authentication: AuthenticationContext?
    ) throws(KeychainError) {
        guard !policy.requiresUserPresence else {
            throw KeychainError(.unsupported, "the Secret Service backend has no per-item passphrase (userPresence)")
        }
        let identity = item.info.identity
        // The Secret Service has no transaction: the check and the write are as close as its API allows.
        let existing = try lookup(identity)
        try mode.check(exists: existing != nil)
        var item = item
        if mode == .upsert, let existing { item.info.creationDate = existing.item.info.creationDate }
        var stored = try Stored(item: item, policy: policy).encoded()
        defer { Wipe.bytes(&stored) }
        let label = item.info.label ?? identity.attributes.values.sorted().joined(separator: " ")
        var error: UnsafeMutablePointer<GError>?
        let ok = stored.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                strongroom_secret_store(
                    store,
                    identity.itemClass,
                    identity.canonical,
                    "Strongroom: \(label)",
                    text.baseAddress,
                    &error
                )
            }
        }
        try Self.check(error)
        guard ok != 0 else { throw KeychainError(.io, "the Secret Service did not store the item") }
    }

    public func item(
        for identity: ItemIdentity,
        authentication: AuthenticationContext?
    ) throws(KeychainError)
        -> KeychainItem?
    {
        guard let stored = try lookup(identity) else { return nil }
        guard stored.item.info.identity == identity else {
            throw KeychainError(.tampered, "the item was stored under another identity")
        }
        return stored.item
    }

    public func info(for identity: ItemIdentity) throws(KeychainError) -> ItemInfo? {
        try lookup(identity)?.item.info
    }

    public func allItems() throws(KeychainError) -> [ItemInfo] {
        var error: UnsafeMutablePointer<GError>?
        let secrets = strongroom_secret_search_all(store, &error)
        defer { strongroom_secret_free_all(secrets) }
        try Self.check(error)
        var infos: [ItemInfo] = []
        var cursor = secrets
        while let pointer = cursor?.pointee {
            if let stored = try? Stored(text: pointer) { infos.append(stored.item.info) }
            cursor = cursor?.advanced(by: 1)
        }
        return infos
    }

    public func remove(_ identity: ItemIdentity) throws(KeychainError) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let removed = strongroom_secret_clear(store, identity.itemClass, identity.canonical, &error)
        try Self.check(error)
        return removed != 0
    }

    public func removeAll() throws(KeychainError) {
        var error: UnsafeMutablePointer<GError>?
        _ = strongroom_secret_clear_store(store, &error)
        try Self.check(error)
    }

    /// The collection's lock belongs to the desktop session.
    public func lock() {}

    /// The collection's lock belongs to the desktop session (the provider prompts or was unlocked at login).
    public func unlock(passphrase: String) throws(KeychainError) {}

    private func lookup(_ identity: ItemIdentity) throws(KeychainError) -> Stored? {
        var error: UnsafeMutablePointer<GError>?
        let secret = strongroom_secret_lookup(store, identity.itemClass, identity.canonical, &error)
        defer { if let secret { secret_password_free(secret) } }  // wipes the text
        try Self.check(error)
        guard let secret else { return nil }
        return try Stored(text: secret)
    }

    /// Turns a GError into a ``KeychainError`` (and frees it).
    private static func check(_ error: UnsafeMutablePointer<GError>?) throws(KeychainError) {
        guard let error else { return }
        let message = String(cString: strongroom_error_message(error))
        g_error_free(error)
        throw KeychainError(.io, "Secret Service: \(message)")
    }

    /// What the Secret Service holds as the secret: the item's information and value, base64 of JSON.
    private struct Stored: Codable {
        var info: ItemInfo
        var policy: String
        var value: Data

        init(item: KeychainItem, policy: AccessPolicy) {
            self.info = item.info
            self.policy = policy.description
            self.value = item.secret.withUnsafeBytes { Data($0) }
        }

        init(text: UnsafePointer<CChar>) throws(KeychainError) {
            let encoded = String(cString: text)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            guard let json = Data(base64Encoded: encoded), let stored = try? decoder.decode(Stored.self, from: json)
            else {
                throw KeychainError(.tampered, "a Secret Service item is not one Strongroom wrote")
            }
            self = stored
        }

        var item: KeychainItem { KeychainItem(info: info, secret: SecureBytes(copying: value)) }

        /// NUL-terminated base64 text.
        func encoded() throws(KeychainError) -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            guard let json = try? encoder.encode(self) else {
                throw KeychainError(.io, "the item could not be encoded")
            }
            return Array(json.base64EncodedString().utf8) + [0]
        }
    }
}
