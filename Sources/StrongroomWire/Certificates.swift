// Strongroom — SPDX-License-Identifier: Apache-2.0
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/pki/enroll` and `POST /v1/pki/renew` body: a PKCS#10 request for a client certificate (Strongroom's
/// extension to the E3DB API).
public struct EnrolmentRequest: Codable, Sendable, Hashable {
    /// The CSR as PEM (`-----BEGIN CERTIFICATE REQUEST-----`).
    public var csr: String

    /// Creates the body.
    public init(csr: String) { self.csr = csr }
}

/// The answer to an enrolment or renewal: the certificate bound to the client, and the CA chain that issued it.
public struct EnrolmentResponse: Codable, Sendable, Hashable {
    /// The issued certificate as PEM.
    public var certificate: String
    /// The issuing CA's chain as PEM, issuer first.
    public var chain: String
    /// The serial number as lowercase hex.
    public var serial: String
    /// The end of validity, Unix seconds.
    public var notAfter: Int64

    enum CodingKeys: String, CodingKey {
        case certificate, chain, serial
        case notAfter = "not_after"
    }

    /// Creates the answer.
    public init(certificate: String, chain: String, serial: String, notAfter: Int64) {
        self.certificate = certificate
        self.chain = chain
        self.serial = serial
        self.notAfter = notAfter
    }
}

/// The URI every client certificate names its client with (SAN URI): `urn:strongroom:client:<lowercase uuid>`.
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
}
