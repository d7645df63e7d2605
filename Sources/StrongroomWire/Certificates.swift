// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v1/pki/enroll` and `POST /v1/pki/renew` body: a PKCS#10 request for a client certificate (Strongroom's
/// extension to the E3DB API).
public struct EnrollmentRequest: Codable, Sendable, Hashable {
    /// The CSR as PEM (`-----BEGIN CERTIFICATE REQUEST-----`).
    public var csr: String

    /// Creates the body.
    public init(csr: String) { self.csr = csr }
}

/// The answer to an enrollment or renewal: the certificate bound to the client, and the CA chain that issued it.
public struct EnrollmentResponse: Codable, Sendable, Hashable {
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
