// Strongroom — SPDX-License-Identifier: Apache-2.0
import CLibSecret
import Foundation
import StrongroomCore
public import StrongroomKeychain

/// Items in the desktop's Secret Service (gnome-keyring, KWallet, KeePassXC) through libsecret.
///
/// Generic and internet passwords whose secret is text are *standard* items other tools read and write: the
/// password itself is the secret, under the freedesktop attribute names — `service` and `username`
/// (`org.freedesktop.Secret.Generic`, as Python's `keyring` and `secret-tool` use them) or `user`, `server`,
/// `protocol`, `port`, `object`, `domain` (`org.gnome.keyring.NetworkPassword`, as git's libsecret helper does) —
/// with Strongroom's own attributes beside them (`store`, `class`, `identity`, and `strongroom-info`: the item's
/// label, dates and policy). A password another tool stored is found by those standard attributes and read as a
/// plain item (no label, dates unknown); Strongroom never removes or overwrites another tool's item. Keys,
/// certificates, identities, binary secrets and userPresence items stay Strongroom-specific: one opaque item whose
/// secret holds the information and value.
///
/// Items carry the store name (as a Valet's identifier: two stores never see each other's items). The
/// collection's own lock (the login keyring) is the lock state, so ``lock()`` and ``unlock(passphrase:)`` do
/// nothing here and `AccessPolicy.Options.userPresence` is unsupported. The Secret Service keeps lookup attributes
/// readable to the session, by its design.
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
        if let standard = Standard(identity), let text = Standard.text(of: item.secret) {
            // Any earlier form of this item (opaque, or standard) goes first: a changed strongroom-info would
            // otherwise leave two items.
            try clearOwn(identity)
            let label = item.info.label ?? "\(identity.attributes["account"] ?? "") on \(standard.place)"
            let info = try Stored.infoText(item.info, policy: policy)
            var pairs = standard.pairs + ownPairs(identity) + [("strongroom-info", info)]
            pairs.sort { $0.0 < $1.0 }
            var error: UnsafeMutablePointer<GError>?
            let ok = Self.withAttributes(pairs) { keys, values, count in
                strongroom_standard_store(standard.kind, keys, values, count, label, text, &error)
            }
            try Self.check(error)
            guard ok != 0 else { throw KeychainError(.io, "the Secret Service did not store the item") }
            return
        }
        try clearOwn(identity)
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
        var secrets: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var infos: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        Self.withAttributes([("store", store)]) { keys, values, count in
            strongroom_standard_find_all(3, keys, values, count, &secrets, &infos, &error)
        }
        defer {
            strongroom_secret_free_all(secrets)
            strongroom_secret_free_all(infos)
        }
        try Self.check(error)
        var found: [ItemInfo] = []
        var index = 0
        while let secret = secrets?[index], let info = infos?[index] {
            // Listing: an item under our schema that does not decode is not one of ours (or is damaged); reading it
            // by its identity reports it.
            if let stored = try? Stored(secret: secret, info: info) { found.append(stored.item.info) }
            index += 1
        }
        return found
    }

    public func remove(_ identity: ItemIdentity) throws(KeychainError) -> Bool {
        try clearOwn(identity)
    }

    public func removeAll() throws(KeychainError) {
        // Both forms carry the store name; matching it under any schema name removes every item of this store
        // (and never another tool's, which has none).
        var error: UnsafeMutablePointer<GError>?
        _ = Self.withAttributes([("store", store)]) { keys, values, count in
            strongroom_standard_clear(3, keys, values, count, &error)
        }
        try Self.check(error)
    }

    /// The collection's lock belongs to the desktop session.
    public func lock() {}

    /// The collection's lock belongs to the desktop session (the provider prompts or was unlocked at login).
    public func unlock(passphrase: String) throws(KeychainError) {}

    /// This store's item (either form), else a standard item another tool stored under the same attributes.
    private func lookup(_ identity: ItemIdentity) throws(KeychainError) -> Stored? {
        if let own = try find(kind: 3, ownPairs(identity)) {
            return try Stored(secret: own.secret, info: own.info)
        }
        guard let standard = Standard(identity), let foreign = try find(kind: standard.anyKind, standard.pairs),
            cText(foreign.info).isEmpty  // another Strongroom store's item is not this store's
        else { return nil }
        let text = cText(foreign.secret)
        let now = Date()
        let info = ItemInfo(
            identity: identity,
            label: nil,
            comment: nil,
            creationDate: now,
            modificationDate: now,
            accessPolicy: AccessPolicy.default.description,
            valueKind: "data"
        )
        return Stored(info: info, policy: AccessPolicy.default.description, value: Data(text.utf8))
    }

    /// The first item matching `pairs`: its secret and `strongroom-info` texts (copied, then wiped and freed).
    private func find(
        kind: Int32,
        _ pairs: [(String, String)]
    ) throws(KeychainError) -> (secret: [CChar], info: [CChar])? {
        var error: UnsafeMutablePointer<GError>?
        var secret: UnsafeMutablePointer<CChar>?
        var info: UnsafeMutablePointer<CChar>?
        let found = Self.withAttributes(pairs) { keys, values, count in
            strongroom_standard_find(kind, keys, values, count, &secret, &info, &error)
        }
        defer {
            if let secret { secret_password_free(secret) }  // wipes the text
            g_free(info)
        }
        try Self.check(error)
        guard found != 0, let secret else { return nil }
        let copy = Array(UnsafeBufferPointer(start: secret, count: strlen(secret) + 1))
        let infoCopy = info.map { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) } ?? [0]
        return (copy, infoCopy)
    }

    /// Removes this store's item of `identity`, in either form; whether there was one.
    @discardableResult
    private func clearOwn(_ identity: ItemIdentity) throws(KeychainError) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let removed = Self.withAttributes(ownPairs(identity)) { keys, values, count in
            strongroom_standard_clear(3, keys, values, count, &error)
        }
        try Self.check(error)
        return removed != 0
    }

    /// The attributes that name this store's item of `identity`, whatever its form.
    private func ownPairs(_ identity: ItemIdentity) -> [(String, String)] {
        [("store", store), ("class", identity.itemClass), ("identity", identity.canonical)]
    }

    /// Runs `body` with `pairs` as C arrays of keys and values.
    private static func withAttributes<R>(
        _ pairs: [(String, String)],
        _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int32) -> R
    ) -> R {
        let keys = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        var keyPointers = keys.map { UnsafePointer<CChar>($0) }
        var valuePointers = values.map { UnsafePointer<CChar>($0) }
        return keyPointers.withUnsafeMutableBufferPointer { keyBuffer in
            valuePointers.withUnsafeMutableBufferPointer { valueBuffer in
                body(keyBuffer.baseAddress, valueBuffer.baseAddress, Int32(pairs.count))
            }
        }
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

        init(info: ItemInfo, policy: String, value: Data) {
            (self.info, self.policy, self.value) = (info, policy, value)
        }

        /// An item found by its attributes: a standard one when `info` (the `strongroom-info` text) is not empty,
        /// else an opaque one whose secret is the whole encoded item.
        init(secret: [CChar], info: [CChar]) throws(KeychainError) {
            let infoText = cText(info)
            guard !infoText.isEmpty else {
                self = try secret.withUnsafeBufferPointer { buffer throws(KeychainError) in
                    guard let text = buffer.baseAddress else {
                        throw KeychainError(.tampered, "a Secret Service item has no secret")
                    }
                    return try Stored(text: text)
                }
                return
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            guard let json = Data(base64Encoded: infoText), let meta = try? decoder.decode(Meta.self, from: json) else {
                throw KeychainError(.tampered, "a Secret Service item's strongroom-info is not one Strongroom wrote")
            }
            self.init(info: meta.info, policy: meta.policy, value: Data(cText(secret).utf8))
        }

        init(secret: UnsafeMutablePointer<CChar>, info: UnsafeMutablePointer<CChar>) throws(KeychainError) {
            let secretCopy = Array(UnsafeBufferPointer(start: secret, count: strlen(secret) + 1))
            let infoCopy = Array(UnsafeBufferPointer(start: info, count: strlen(info) + 1))
            try self.init(secret: secretCopy, info: infoCopy)
        }

        /// What a standard item carries in `strongroom-info`: its information and policy (no value).
        struct Meta: Codable {
            var info: ItemInfo
            var policy: String
        }

        /// The `strongroom-info` text of an item: base64 of JSON.
        static func infoText(_ info: ItemInfo, policy: AccessPolicy) throws(KeychainError) -> String {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            guard let json = try? encoder.encode(Meta(info: info, policy: policy.description)) else {
                throw KeychainError(.io, "the item could not be encoded")
            }
            return json.base64EncodedString()
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

    /// How a generic or internet password appears to other tools.
    private struct Standard {
        /// The schema kind to store with (1 generic, 2 network) and to find other tools' items with (3, 4).
        let kind: Int32
        var anyKind: Int32 { kind + 2 }
        /// The freedesktop attributes.
        let pairs: [(String, String)]
        /// Where the password is used, for a label.
        let place: String

        /// The standard form of `identity`, or nil for other classes.
        init?(_ identity: ItemIdentity) {
            let attributes = identity.attributes
            guard let account = attributes["account"] else { return nil }
            switch identity.itemClass {
            case GenericPassword.name:
                kind = 1
                pairs = [("username", account)] + (attributes["service"].map { [("service", $0)] } ?? [])
                place = attributes["service"] ?? "this computer"
            case InternetPassword.name:
                guard let server = attributes["server"] else { return nil }
                kind = 2
                let mapped: [(String, String)] = [
                    ("protocol", "protocol"), ("port", "port"), ("path", "object"), ("securityDomain", "domain"),
                ].compactMap { name, standard in attributes[name].map { (standard, $0) } }
                pairs = [("user", account), ("server", server)] + mapped
                place = server
            default:
                return nil
            }
        }

        /// The secret as NUL-free UTF-8 text (what other tools read), or nil for other bytes.
        static func text(of secret: SecureBytes) -> String? {
            secret.withUnsafeBytes { bytes in
                guard !bytes.contains(0) else { return nil }
                return String(validating: bytes, as: UTF8.self)
            }
        }
    }
}

/// The text of a copied, NUL-terminated C string.
private func cText(_ characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
