// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// What names one item: its class and identifying attributes, with one canonical text form that backends use as
/// a lookup key and as associated data.
public struct ItemIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The class name (`genp`, `inet`, `keys`, `cert`, `idnt`).
    public var itemClass: String
    /// The identifying attributes.
    public var attributes: [String: String]

    /// Creates an identity; empty attribute values are dropped.
    public init(itemClass: String, attributes: [String: String]) {
        self.itemClass = itemClass
        self.attributes = attributes.filter { !$0.value.isEmpty }
    }

    /// `class` then the attributes sorted by name, as a JSON array (unambiguous whatever the characters).
    public var canonical: String {
        let pairs = attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        // Cannot fail: an array of strings is always valid JSON (the fallback is never taken).
        let data = (try? JSONSerialization.data(withJSONObject: [itemClass] + pairs, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    public var description: String { canonical }
}

/// What ``Keychain/info(for:)`` and listings return: never the secret.
public struct ItemInfo: Sendable, Hashable, Codable {
    /// The item's class and identifying attributes.
    public var identity: ItemIdentity
    /// The label.
    public var label: String?
    /// The comment.
    public var comment: String?
    /// When it was stored.
    public var creationDate: Date
    /// When it last changed.
    public var modificationDate: Date
    /// Its access policy.
    public var accessPolicy: String
    /// The kind of value (`data`, `key.curve25519.signing`, `certificate`, `identity`, …).
    public var valueKind: String
    /// Descriptive attributes recorded from the value when it was stored, for ``ItemFilter`` searches: a key's
    /// `keyType`, `keySizeInBits` and `keyClass`; a certificate's (or an identity's certificate's) `subject`,
    /// `issuer`, `serialNumber` and `publicKeyHash`. Sealed with the item like the rest of its information; never
    /// part of its identity. Items stored before these attributes existed have none until stored again.
    public var attributes: [String: String]

    /// Assembles item information.
    public init(
        identity: ItemIdentity,
        label: String?,
        comment: String?,
        creationDate: Date,
        modificationDate: Date,
        accessPolicy: String,
        valueKind: String,
        attributes: [String: String] = [:]
    ) {
        self.identity = identity
        self.label = label
        self.comment = comment
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.accessPolicy = accessPolicy
        self.valueKind = valueKind
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey {
        case identity, label, comment, creationDate, modificationDate, accessPolicy, valueKind, attributes
    }

    /// Decodes item information; `attributes` is optional so items written before it existed still open.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identity = try container.decode(ItemIdentity.self, forKey: .identity)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        creationDate = try container.decode(Date.self, forKey: .creationDate)
        modificationDate = try container.decode(Date.self, forKey: .modificationDate)
        accessPolicy = try container.decode(String.self, forKey: .accessPolicy)
        valueKind = try container.decode(String.self, forKey: .valueKind)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
    }
}
