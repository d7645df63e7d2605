// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomCrypto

/// An integrity report signed by the key that signs the app's requests, sent to the app's own backend in one
/// header (``headerName``) so that the backend can apply its policy to this device's verdict
/// (StrongroomBackend's `IntegrityVerdictMiddleware`).
///
/// The header is `v1.<base64url report JSON>.<base64url Ed25519 signature>`, the signature over
/// ``signingContext`` followed by the report's bytes. The backend verifies it with the request's TSV1 signer key,
/// so a report cannot be lent to another user, and checks its age, so an old clean report cannot stand in for a new
/// one. A report is what the device says about itself: it raises the cost of running the app under a debugger or with
/// a modified binary, it does not prove the absence of a capable attacker on the device.
public struct IntegrityEvidence: Sendable, Hashable {
    /// The HTTP header that carries it.
    public static let headerName = "Strongroom-Integrity"
    /// What the signature covers before the report's bytes.
    public static let signingContext = Array("strongroom-integrity-evidence-v1\n".utf8)
    /// The largest header accepted (a report is at most 256 KiB).
    public static let maximumHeaderBytes = 400 << 10

    /// The report.
    public let report: IntegrityReport
    /// The report's bytes as signed.
    public let reportBytes: [UInt8]
    /// The Ed25519 signature.
    public let signature: [UInt8]

    /// Signs `report` with `signingKey` (the key the app's requests are signed with).
    public init(report: IntegrityReport, signingKey: SigningPrivateKey) {
        self.report = report
        self.reportBytes = Array(report.jsonRepresentation())
        self.signature = Array(signingKey.signature(for: Data(Self.signingContext + reportBytes)))
    }

    /// The header value.
    public var headerValue: String {
        "v1." + Base64URL.encode(Data(reportBytes)) + "." + Base64URL.encode(Data(signature))
    }

    /// Evidence from a header value, after checking its signature by `publicKey` (nothing is decoded as JSON before
    /// the signature verified).
    ///
    /// - Throws: ``ShieldError/Code/invalidFormat`` for a malformed or oversized value,
    ///   ``ShieldError/Code/authenticationFailed`` when `publicKey` did not sign it.
    public init(headerValue: String, signedBy publicKey: SigningPublicKey) throws(ShieldError) {
        guard headerValue.utf8.count <= Self.maximumHeaderBytes else {
            throw ShieldError(.invalidFormat, "the integrity evidence is larger than \(Self.maximumHeaderBytes) bytes")
        }
        let parts = headerValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let report = try? Base64URL.decode(parts[1]),
            let signature = try? Base64URL.decode(parts[2]), signature.count == 64
        else { throw ShieldError(.invalidFormat, "the integrity evidence is not v1.<report>.<signature>") }
        guard publicKey.isValidSignature(signature, for: Data(Self.signingContext) + report) else {
            throw ShieldError(.authenticationFailed, "the integrity evidence was not signed by the request's signer")
        }
        self.report = try IntegrityReport(jsonRepresentation: report)
        self.reportBytes = Array(report)
        self.signature = Array(signature)
    }
}
