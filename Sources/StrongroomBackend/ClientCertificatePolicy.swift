// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import NIOSSL
import StrongroomCore
import StrongroomPKI
import SwiftASN1
public import X509

/// Which client certificates a backend accepts: those chaining to its CA (a Strongroom CA's chain, or any private
/// CA), for client authentication, within their validity, and not revoked.
///
/// Path building runs over the operator's anchors only: intermediates a client sends are ignored, and the leaf must
/// be issued by one of `anchors` (which therefore holds every CA that issues client certificates). A handshake
/// costs one parse and a few signature checks whatever the client sends.
public struct ClientCertificatePolicy: Sendable {
    /// Says whether a certificate was revoked.
    public struct Revocation: Sendable {
        let isRevoked: @Sendable (Certificate) async throws -> Bool

        /// No revocation check (for a CA that never revokes: short-lived certificates).
        public static let none = Revocation { _ in false }

        /// These serial numbers of certificates the anchors issued are revoked.
        public static func serials(_ serials: Set<Certificate.SerialNumber>) -> Revocation {
            Revocation { serials.contains($0.serialNumber) }
        }

        /// Whatever `isRevoked` says (a lookup in the backend's database, a cached revocation list). An error
        /// refuses the certificate: revocation fails closed.
        public static func custom(_ isRevoked: @escaping @Sendable (Certificate) async throws -> Bool) -> Revocation {
            Revocation(isRevoked: isRevoked)
        }
    }

    /// The CA certificates client certificates are issued by.
    public let anchors: [Certificate]
    /// The revocation check, run in the handshake and again on every request.
    public let revocation: Revocation
    let now: @Sendable () -> Date

    /// Accepts certificates issued by `anchors` for client authentication, unless `revocation` says otherwise.
    public init(anchors: [Certificate], revocation: Revocation, now: @escaping @Sendable () -> Date = { Date() }) {
        self.anchors = anchors
        self.revocation = revocation
        self.now = now
    }

    /// Anchors from a PEM bundle, such as a Strongroom server's `GET /v1/pki/ca`.
    ///
    /// - Throws: a PKI error when the bundle holds no certificate or one does not parse.
    public init(anchorsPEM pem: String, revocation: Revocation) throws {
        self.init(anchors: try CertificateBundle.certificates(from: Array(pem.utf8)), revocation: revocation)
    }

    /// Nil when `certificate` is acceptable now, else why not.
    public func refusal(of certificate: Certificate) async -> String? {
        do {
            _ = try await ChainValidator(anchors: anchors).validate(certificate, purpose: .clientAuth, at: now())
        } catch {
            return error.message
        }
        do {
            if try await revocation.isRevoked(certificate) { return "the certificate is revoked" }
        } catch {
            return "revocation could not be checked"
        }
        return nil
    }

    /// The handshake's check of what a client presented (only the leaf is used).
    func verify(_ presented: [NIOSSLCertificate]) async -> NIOSSLVerificationResult {
        guard let leaf = MutualTLS.presentedLeaf(presented) else { return .failed }
        return await refusal(of: leaf) == nil ? .certificateVerified : .failed
    }
}
