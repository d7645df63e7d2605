// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A client certificate the server's CA issued: who it is bound to, when it is valid, and whether it was revoked.
package struct StoredCertificate: Sendable, Hashable {
    /// The serial number, lowercase hex.
    package var serial: String
    /// The client it is bound to (lowercase UUID).
    package var clientID: String
    /// Start of validity, Unix seconds.
    package var notBefore: Int64
    /// End of validity, Unix seconds.
    package var notAfter: Int64
    /// When it was issued, Unix seconds.
    package var issued: Int64
    /// SHA-256 of the DER certificate, lowercase hex.
    package var fingerprint: String
    /// When it was revoked (Unix seconds), or nil while it is in force.
    package var revokedAt: Int64?
    /// Why: `revoked` by an operator, `superseded` by a renewal.
    package var revocationReason: String?

    /// Describes an issued certificate.
    package init(
        serial: String,
        clientID: String,
        notBefore: Int64,
        notAfter: Int64,
        issued: Int64,
        fingerprint: String,
        revokedAt: Int64? = nil,
        revocationReason: String? = nil
    ) {
        self.serial = serial
        self.clientID = clientID
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issued = issued
        self.fingerprint = fingerprint
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
    }

    /// Whether it was revoked.
    package var isRevoked: Bool { revokedAt != nil }
}
