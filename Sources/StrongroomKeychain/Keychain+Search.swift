// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import X509

extension Keychain {
    /// The information of every item `filter` matches (never secrets), sorted by identity.
    ///
    /// Matching reads each item's sealed information only; no secret is opened and no certificate parsed. Turn a
    /// result into a query with `ItemQuery(info)` to read the item.
    public func items<Class>(matching filter: ItemFilter<Class>) throws(KeychainError) -> [ItemInfo] {
        try items().filter(filter.matches)
    }

    /// The certificates `filter` matches, sorted by identity.
    public func certificates(matching filter: ItemFilter<SecCertificate>) throws(KeychainError) -> [Certificate] {
        var found: [Certificate] = []
        for info in try items(matching: filter) where info.valueKind == "certificate" {
            if let query = ItemQuery<SecCertificate>(info), let certificate = try retrieve(query, as: Certificate.self)
            {
                found.append(certificate)
            }
        }
        return found
    }

    /// The identities `filter` matches, sorted by identity.
    ///
    /// - Throws: ``KeychainError/Code/authenticationRequired`` when one of them needs a passphrase (read those one by
    ///   one with a query that carries it).
    public func identities(matching filter: ItemFilter<SecIdentity>) throws(KeychainError) -> [DigitalIdentity] {
        var found: [DigitalIdentity] = []
        for info in try items(matching: filter) {
            if let query = ItemQuery<SecIdentity>(info), let identity = try retrieve(query) { found.append(identity) }
        }
        return found
    }

    /// The keys of type `Key` that `filter` matches, sorted by identity; keys of other kinds are skipped.
    public func keys<Key: KeychainKeyConvertible>(
        matching filter: ItemFilter<SecKey>,
        as type: Key.Type = Key.self
    ) throws(KeychainError) -> [Key] {
        var found: [Key] = []
        for info in try items(matching: filter) where info.valueKind == "key." + Key.keychainKeyKind {
            if let query = ItemQuery<SecKey>(info), let key = try retrieve(query, as: Key.self) { found.append(key) }
        }
        return found
    }
}
