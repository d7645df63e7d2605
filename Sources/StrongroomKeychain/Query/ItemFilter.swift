// Strongroom — SPDX-License-Identifier: Apache-2.0
public import X509

/// A search over the items of one class by some of their attributes (ConfidoIOS's `KeychainMatchable`): every
/// certificate with a label, every P-256 private key, every identity issued by a CA.
///
/// A filter matches an item when every condition it sets equals the item's identifying attribute of that name, or
/// else its descriptive one (``ItemInfo/attributes``, recorded from the value when it was stored). Searching reads
/// each item's sealed information, never its secret: no key or certificate is opened or parsed to match it.
///
/// ```swift
/// let caIssued = try keychain.items(matching: .identities(issuer: ca.subject))
/// let rsaKeys = try keychain.items(matching: .keys(type: .rsa, keyClass: .private))
/// ```
public struct ItemFilter<Class: ItemClass>: Sendable, Hashable, CustomDebugStringConvertible {
    /// Attribute name → required value.
    var conditions: [String: String]
    /// Only items with exactly this label.
    public var label: String?

    package init(conditions: [String: String?] = [:], label: String? = nil) {
        self.conditions = conditions.compactMapValues { $0 }
        self.label = label
    }

    /// Every item of the class.
    public static var all: Self { Self() }

    /// Whether `info` is an item of the class that meets every condition.
    public func matches(_ info: ItemInfo) -> Bool {
        guard info.identity.itemClass == Class.name else { return false }
        if let label, info.label != label { return false }
        return conditions.allSatisfy { name, value in
            (info.identity.attributes[name] ?? info.attributes[name]) == value
        }
    }

    public var debugDescription: String {
        var parts = conditions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if let label { parts.append("label=\(label)") }
        return "ItemFilter<\(Class.self)>(\(parts.joined(separator: ", ")))"
    }
}

extension ItemFilter where Class == GenericPassword {
    /// Generic passwords of a service and/or account.
    public static func credentials(service: String? = nil, account: String? = nil) -> Self {
        Self(conditions: ["service": service, "account": account])
    }
}

extension ItemFilter where Class == InternetPassword {
    /// Internet passwords of a host and/or account.
    public static func credentials(server: String? = nil, account: String? = nil) -> Self {
        Self(conditions: ["server": server, "account": account])
    }
}

extension ItemFilter where Class == SecKey {
    /// Keys of a type, size and/or class (keys stored with ``KeychainKeyConvertible/keychainKeyAttributes`` nil,
    /// and keys stored before these attributes were recorded, match only the unconstrained filter).
    public static func keys(type: KeyType? = nil, sizeInBits: Int? = nil, keyClass: KeyClass? = nil) -> Self {
        Self(conditions: [
            "keyType": type?.rawValue, "keySizeInBits": sizeInBits.map(String.init), "keyClass": keyClass?.rawValue,
        ])
    }
}

extension ItemFilter where Class == SecCertificate {
    /// Certificates with a label, subject, issuer and/or public key.
    public static func certificates(
        label: String? = nil,
        subject: DistinguishedName? = nil,
        issuer: DistinguishedName? = nil,
        publicKey: Certificate.PublicKey? = nil
    ) -> Self {
        Self(
            conditions: CertificateAttributes.conditions(subject: subject, issuer: issuer, publicKey: publicKey),
            label: label
        )
    }
}

extension ItemFilter where Class == SecIdentity {
    /// Identities with a label, or whose certificate has a subject, issuer and/or public key.
    public static func identities(
        label: String? = nil,
        subject: DistinguishedName? = nil,
        issuer: DistinguishedName? = nil,
        publicKey: Certificate.PublicKey? = nil
    ) -> Self {
        Self(
            conditions: CertificateAttributes.conditions(subject: subject, issuer: issuer, publicKey: publicKey),
            label: label
        )
    }
}
