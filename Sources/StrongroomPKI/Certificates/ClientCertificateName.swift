// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import X509

/// How a client certificate names its Strongroom client: the SAN URI `urn:strongroom:client:<lowercase uuid>`.
/// The server's CA writes it, the server's mutual-TLS binding and the SDK read it.
public enum ClientCertificateName {
    /// The prefix before the client ID.
    public static let prefix = "urn:strongroom:client:"

    /// The URI for `clientID`.
    public static func uri(for clientID: String) -> String { prefix + clientID.lowercased() }

    /// The client ID a URI names, or nil when it is not a client URI with a UUID.
    public static func clientID(in uri: String) -> String? {
        guard uri.hasPrefix(prefix) else { return nil }
        return UUID(uuidString: String(uri.dropFirst(prefix.count)))?.uuidString.lowercased()
    }

    /// The one client `certificate` names, or nil when it names none or several.
    public static func clientID(of certificate: Certificate) -> String? {
        // A malformed SAN extension names no client: the certificate is not a client certificate.
        let names = (try? certificate.extensions.subjectAlternativeNames) ?? nil
        let clients = Set(
            (names ?? SubjectAlternativeNames([])).compactMap { name -> String? in
                guard case .uniformResourceIdentifier(let uri) = name else { return nil }
                return clientID(in: uri)
            }
        )
        return clients.count == 1 ? clients.first : nil
    }
}
