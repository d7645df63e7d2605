// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// What to store, find or remove: the item's class (a phantom type), its identifying attributes and the
/// descriptive ones, as SwiftSecurity's `SecItemQuery`.
///
/// Build one with a factory (`.credential(for:)`, `.credential(for:space:)`, `.key(for:)`, `.certificate(for:)`,
/// `.identity(for:)`) and set further attributes, which exist only on their class:
///
/// ```swift
/// var query = ItemQuery<GenericPassword>.credential(for: "alice", service: "api.example.com")
/// query.label = "Example API"
/// try keychain.store("s3cret", query: query)
/// ```
public struct ItemQuery<Class: ItemClass>: Sendable, Hashable, CustomDebugStringConvertible {
    /// The identifying attributes: two queries with the same ones name the same item.
    var primary: [String: String]
    /// A user-visible name (stored with the item, returned by ``Keychain/info(for:)``).
    public var label: String?
    /// A user-visible comment.
    public var comment: String?
    /// The passphrase for items with ``AccessPolicy/Options/userPresence``.
    public var authenticationContext: AuthenticationContext?
    /// Apple's iCloud Keychain sync: `true` is ``KeychainError/Code/unsupported`` on Linux.
    public var synchronizable = false
    /// Apple's keychain access groups: any value is ``KeychainError/Code/unsupported`` on Linux (use separate
    /// keychain files and file permissions instead).
    public var accessGroup: String?

    init(primary: [String: String]) {
        self.primary = primary
    }

    /// An empty query to fill attribute by attribute (SwiftSecurity's `SecItemQuery<Class>()`). Using it before an
    /// identifying attribute is set is ``KeychainError/Code/invalidParameters``.
    public init() {
        self.init(primary: [:])
    }

    /// The query naming the item `info` describes (as ``Keychain/items(matching:)`` returns), with its label; nil
    /// when the item is of another class.
    public init?(_ info: ItemInfo) {
        guard info.identity.itemClass == Class.name else { return nil }
        self.init(primary: info.identity.attributes)
        label = info.label
        comment = info.comment
    }

    /// The item identity this query names.
    var identity: ItemIdentity { ItemIdentity(itemClass: Class.name, attributes: primary) }

    /// Refuses Apple-only attributes and empty identities.
    func validate() throws(KeychainError) {
        if synchronizable { throw KeychainError(.unsupported, "iCloud Keychain sync does not exist on Linux") }
        if accessGroup != nil { throw KeychainError(.unsupported, "access groups do not exist on Linux") }
        if primary.values.allSatisfy(\.isEmpty) {
            throw KeychainError(.invalidParameters, "a query needs at least one identifying attribute")
        }
    }

    public var debugDescription: String {
        let attributes = primary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        return "ItemQuery<\(Class.self)>(\(attributes)\(label.map { ", label=\($0)" } ?? ""))"
    }

    subscript(attribute: String) -> String? {
        get { primary[attribute] }
        set { primary[attribute] = newValue }
    }
}

/// Porting alias: SwiftSecurity calls it `SecItemQuery`.
public typealias SecItemQuery = ItemQuery

extension ItemQuery where Class == GenericPassword {
    /// A generic password for `account`, optionally scoped to `service`.
    public static func credential(for account: String, service: String? = nil) -> Self {
        var query = Self(primary: ["account": account])
        query.service = service
        return query
    }

    /// The service the secret belongs to.
    public var service: String? {
        get { self["service"] }
        set { self["service"] = newValue }
    }

    /// The account name.
    public var account: String? {
        get { self["account"] }
        set { self["account"] = newValue }
    }
}

/// A web protection space: where an internet password is used.
public struct WebProtectionSpace: Sendable, Hashable {
    /// The host name.
    public var host: String
    /// The port (nil: the protocol's default).
    public var port: Int?
    /// The protocol.
    public var `protocol`: WebProtocol
    /// An optional path prefix.
    public var path: String?
    /// The authentication realm.
    public var securityDomain: String?

    /// Creates a protection space.
    public init(
        host: String,
        port: Int? = nil,
        protocol: WebProtocol = .https,
        path: String? = nil,
        securityDomain: String? = nil
    ) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.path = path
        self.securityDomain = securityDomain
    }
}

/// The protocols of ``WebProtectionSpace``.
public enum WebProtocol: String, Sendable, Hashable, CaseIterable {
    case https, http, ftp, ftps, ssh, imaps, smtp, ldap, ldaps, socks
}

extension ItemQuery where Class == InternetPassword {
    /// An internet password for `account` in a web protection space.
    public static func credential(for account: String, space: WebProtectionSpace) -> Self {
        var query = Self(primary: ["account": account, "server": space.host, "protocol": space.protocol.rawValue])
        query.port = space.port
        query.path = space.path
        query.securityDomain = space.securityDomain
        return query
    }

    /// The account name.
    public var account: String? {
        get { self["account"] }
        set { self["account"] = newValue }
    }

    /// The host.
    public var server: String? {
        get { self["server"] }
        set { self["server"] = newValue }
    }

    /// The port.
    public var port: Int? {
        get { self["port"].flatMap { Int($0) } }
        set { self["port"] = newValue.map(String.init) }
    }

    /// The protocol.
    public var `protocol`: WebProtocol? {
        get { self["protocol"].flatMap(WebProtocol.init(rawValue:)) }
        set { self["protocol"] = newValue?.rawValue }
    }

    /// The path prefix.
    public var path: String? {
        get { self["path"] }
        set { self["path"] = newValue }
    }

    /// The authentication realm.
    public var securityDomain: String? {
        get { self["securityDomain"] }
        set { self["securityDomain"] = newValue }
    }
}

extension ItemQuery where Class == SecKey {
    /// A key identified by its application tag.
    public static func key(for applicationTag: String) -> Self {
        Self(primary: ["applicationTag": applicationTag])
    }

    /// The application tag that names the key.
    public var applicationTag: String? {
        get { self["applicationTag"] }
        set { self["applicationTag"] = newValue }
    }
}

extension ItemQuery where Class == SecCertificate {
    /// A certificate identified by a label of your choice.
    public static func certificate(for label: String) -> Self {
        var query = Self(primary: ["name": label])
        query.label = label
        return query
    }
}

extension ItemQuery where Class == SecIdentity {
    /// A digital identity (certificate and private key) identified by a label of your choice.
    public static func identity(for label: String) -> Self {
        var query = Self(primary: ["name": label])
        query.label = label
        return query
    }
}
