// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import StrongroomCore

/// SwiftSecurity's calls that have no other home: data and attributes in one call, `removeAll` with its sync
/// flag, and a description safe to log.
extension Keychain: CustomDebugStringConvertible {
    /// What `retrieve(_:query:)` returns (SwiftSecurity's `[.data, .attributes]`).
    public enum ReturnType: Sendable, Hashable, CaseIterable {
        /// The secret.
        case data
        /// The item's information (label, comment, dates, policy, descriptive attributes).
        case attributes
    }

    /// The parts of one item asked for; a part not asked for is nil.
    public struct RetrieveResult: Sendable {
        /// The secret, when ``ReturnType/data`` was asked for.
        public let data: SecureBytes?
        /// The information, when ``ReturnType/attributes`` was asked for.
        public let info: ItemInfo?
    }

    /// The secret and/or information of a generic password in one call, or nil when there is none.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` for an empty `types`; otherwise what `retrieve(_:as:)`
    ///   throws.
    public func retrieve(
        _ types: Set<ReturnType>,
        query: ItemQuery<GenericPassword>
    ) throws(KeychainError) -> RetrieveResult? {
        try retrieveParts(types, query: query) { () throws(KeychainError) in try retrieve(query, as: SecureBytes.self) }
    }

    /// The secret and/or information of an internet password in one call, or nil when there is none.
    public func retrieve(
        _ types: Set<ReturnType>,
        query: ItemQuery<InternetPassword>
    ) throws(KeychainError) -> RetrieveResult? {
        try retrieveParts(types, query: query) { () throws(KeychainError) in try retrieve(query, as: SecureBytes.self) }
    }

    /// The information, then (when asked for) the secret `data` reads: an item removed in between is missing.
    private func retrieveParts<Class>(
        _ types: Set<ReturnType>,
        query: ItemQuery<Class>,
        data: () throws(KeychainError) -> SecureBytes?
    ) throws(KeychainError) -> RetrieveResult? {
        guard !types.isEmpty else { throw KeychainError(.invalidParameters, "ask for .data, .attributes or both") }
        guard let info = try info(for: query) else { return nil }
        guard types.contains(.data) else { return RetrieveResult(data: nil, info: info) }
        guard let secret = try data() else { return nil }
        return RetrieveResult(data: secret, info: types.contains(.attributes) ? info : nil)
    }

    /// Removes every item. Synchronized (iCloud) credentials do not exist on Linux, so asking to include them is
    /// refused rather than ignored.
    ///
    /// - Throws: ``KeychainError/Code/unsupported`` when `includingSynchronizableCredentials` is true.
    public func removeAll(includingSynchronizableCredentials: Bool) throws(KeychainError) {
        guard !includingSynchronizableCredentials else {
            throw KeychainError(.unsupported, "synchronizable credentials (iCloud Keychain) do not exist on Linux")
        }
        try removeAll()
    }

    /// The backend and where it keeps its items; never a secret, an item or a passphrase.
    public var debugDescription: String {
        if let file = backend as? EncryptedFileBackend { return "Keychain(encrypted file at \(file.url.path))" }
        return "Keychain(\(type(of: backend)))"
    }
}

extension WebProtectionSpace {
    /// The protection space of a web address (SwiftSecurity's `.website("https://…")`): its scheme's protocol,
    /// host, port and path. Two ports of one host are two spaces. Text that is not an absolute URL with a host is
    /// taken as a host name over HTTPS.
    public static func website(_ address: String) -> WebProtectionSpace {
        guard let url = URL(string: address), let host = url.host, !host.isEmpty else {
            return WebProtectionSpace(host: address)
        }
        let path = url.path(percentEncoded: true)
        return WebProtectionSpace(
            host: host.lowercased(),
            port: url.port,
            protocol: url.scheme.flatMap { WebProtocol(rawValue: $0.lowercased()) } ?? .https,
            path: path.isEmpty || path == "/" ? nil : path
        )
    }
}
