// Strongroom — SPDX-License-Identifier: Apache-2.0

public import Foundation
import StrongroomCore
import SwiftASN1
@_spi(FixedExpiryValidationTime) public import X509

/// Validates a leaf certificate against custom trust anchors with swift-certificates' `Verifier` (RFC 5280 path
/// building and validity), then the purpose, the name and revocation; every failure is a typed ``PKIError`` with
/// the reason.
///
/// ```swift
/// let validator = ChainValidator(anchors: [caCertificate])
/// let chain = try await validator.validate(leaf, purpose: .clientAuth, name: .uri("urn:strongroom:client:…"))
/// ```
public struct ChainValidator: Sendable {
    /// What the leaf must be good for.
    public enum Purpose: Sendable, Hashable {
        /// Any use: no extended key usage is required.
        case any
        /// TLS client authentication (EKU `clientAuth`).
        case clientAuth
        /// TLS server authentication (EKU `serverAuth`).
        case serverAuth
    }

    /// A name the leaf must carry in its subject alternative names.
    public enum ExpectedName: Sendable, Hashable {
        /// A DNS host name (wildcards as RFC 6125 allows) or an IP address.
        case host(String)
        /// An exact e-mail address (rfc822Name).
        case email(String)
        /// An exact URI.
        case uri(String)
    }

    /// The trusted roots.
    public var anchors: [Certificate]
    /// Intermediates that may complete a chain.
    public var intermediates: [Certificate]
    /// Revoked certificates, by issuer and serial number (from a CRL or the CA's own records).
    public var revoked: Set<RevokedCertificate>

    /// A certificate revoked by its issuer.
    public struct RevokedCertificate: Sendable, Hashable {
        /// The issuer's name.
        public var issuer: DistinguishedName
        /// The serial number.
        public var serialNumber: Certificate.SerialNumber

        /// Names a revoked certificate.
        public init(issuer: DistinguishedName, serialNumber: Certificate.SerialNumber) {
            self.issuer = issuer
            self.serialNumber = serialNumber
        }
    }

    /// A validator trusting `anchors`, completing chains with `intermediates`.
    public init(anchors: [Certificate], intermediates: [Certificate] = [], revoked: Set<RevokedCertificate> = []) {
        self.anchors = anchors
        self.intermediates = intermediates
        self.revoked = revoked
    }

    /// The most intermediates a chain may bring (after duplicates are dropped); more is refused before any
    /// signature is checked. Real chains carry one to three.
    public static let maximumIntermediates = 4

    /// The largest public key, as DER `SubjectPublicKeyInfo` bytes, of a certificate taken into path building:
    /// 8192-bit RSA fits (1,062 bytes), so no certificate can make one signature check arbitrarily expensive.
    public static let maximumPublicKeyBytes = 1_100

    /// Refuses a certificate whose key is above ``maximumPublicKeyBytes`` (one signature check with it could cost
    /// what the file chooses).
    ///
    /// - Throws: ``PKIError/Code/unsupported``.
    public static func requireBoundedKey(_ certificate: Certificate) throws(PKIError) {
        guard certificate.publicKey.subjectPublicKeyInfo.count <= maximumPublicKeyBytes else {
            throw PKIError(.unsupported, "\(certificate.subject) has a public key larger than 8192-bit RSA")
        }
    }

    /// `presented` made safe to build paths through, so that no input costs more than a small, fixed amount of
    /// work: at most ``maximumIntermediates`` certificates, each (subject, key) pair once (a certificate that
    /// repeats an earlier one's subject and key can only lengthen the search, never complete a chain the first
    /// could not), and no key above ``maximumPublicKeyBytes``.
    ///
    /// With every (subject, key) pair distinct, a certificate has at most one issuer among the intermediates whose
    /// key verifies its signature, so path building walks one path of at most ``maximumIntermediates`` steps and
    /// checks at most `(maximumIntermediates + 1) × (maximumIntermediates + anchors)` signatures.
    ///
    /// - Throws: ``PKIError/Code/chainTooLong`` for too many distinct intermediates;
    ///   ``PKIError/Code/unsupported`` for an oversized key.
    public static func boundedIntermediates(_ presented: [Certificate]) throws(PKIError) -> [Certificate] {
        // Counted before any work: a peer's list is never walked further than the bound allows.
        guard presented.count <= 4 * maximumIntermediates else {
            throw PKIError(
                .chainTooLong,
                "the chain brings \(presented.count) intermediate certificates; at most \(maximumIntermediates) are accepted"
            )
        }
        var seen: [(subject: DistinguishedName, key: Certificate.PublicKey)] = []
        var kept: [Certificate] = []
        for certificate in presented {
            try requireBoundedKey(certificate)
            if seen.contains(where: { $0.subject == certificate.subject && $0.key == certificate.publicKey }) {
                continue
            }
            seen.append((certificate.subject, certificate.publicKey))
            kept.append(certificate)
        }
        guard kept.count <= maximumIntermediates else {
            throw PKIError(
                .chainTooLong,
                "the chain brings \(kept.count) intermediate certificates; at most \(maximumIntermediates) are accepted"
            )
        }
        return kept
    }

    /// The validated chain, leaf first and an anchor last.
    ///
    /// The intermediates go through ``boundedIntermediates(_:)`` first, so the work is bounded whatever they are.
    ///
    /// - Throws: ``PKIError/Code/expired`` or ``PKIError/Code/notYetValid`` (leaf or issuer);
    ///   ``PKIError/Code/untrustedIssuer`` when no chain reaches an anchor (with the verifier's reason);
    ///   ``PKIError/Code/wrongUsage``; ``PKIError/Code/nameMismatch``; ``PKIError/Code/revoked``;
    ///   ``PKIError/Code/chainTooLong`` for more intermediates than ``maximumIntermediates``.
    public func validate(
        _ leaf: Certificate,
        purpose: Purpose = .any,
        name: ExpectedName? = nil,
        at time: Date = Date()
    ) async throws(PKIError) -> [Certificate] {
        try Self.requireBoundedKey(leaf)
        let bounded = try Self.boundedIntermediates(intermediates)
        let roots = CertificateStore(anchors)
        let others = CertificateStore(bounded)
        // One verifier run with every policy; only a failure pays for the staged runs that name the reason.
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            UsagePolicy(purpose: purpose)
            NamePolicy(name: name)
        }
        let chain: [Certificate]
        switch await verifier.validate(leaf: leaf, intermediates: others) {
        case .validCertificate(let validated): chain = Array(validated)
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no reason given"
            throw await diagnose(leaf, through: bounded, purpose: purpose, name: name, at: time, reason: reason)
        }
        for certificate in chain
        where revoked.contains(RevokedCertificate(issuer: certificate.issuer, serialNumber: certificate.serialNumber)) {
            throw PKIError(.revoked, "\(certificate.subject) (serial \(certificate.serialNumber)) is revoked")
        }
        return chain
    }

    /// Why validation failed, found by adding the policies one at a time: path building and validity (a
    /// certificate outside its validity, else an untrusted issuer), then the usage, then the name.
    private func diagnose(
        _ leaf: Certificate,
        through bounded: [Certificate],
        purpose: Purpose,
        name: ExpectedName?,
        at time: Date,
        reason: String
    ) async -> PKIError {
        let (roots, others) = (CertificateStore(anchors), CertificateStore(bounded))
        var paths = Verifier(rootCertificates: roots) { RFC5280Policy(fixedExpiryValidationTime: time) }
        if case .couldNotValidate(let failures) = await paths.validate(leaf: leaf, intermediates: others) {
            return timeOrTrust(
                leaf,
                through: bounded,
                at: time,
                reason: failures.first.map { "\($0.policyFailureReason)" }
            )
        }
        var usage = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            UsagePolicy(purpose: purpose)
        }
        if case .couldNotValidate(let failures) = await usage.validate(leaf: leaf, intermediates: others) {
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "the key usage does not allow it"
            return PKIError(.wrongUsage, "the certificate is not for \(purpose): \(reason)")
        }
        return PKIError(.nameMismatch, "the certificate does not name \(name.map { "\($0)" } ?? "it"): \(reason)")
    }

    /// Why path building failed: a certificate outside its validity (the leaf, or a would-be issuer), else an
    /// untrusted issuer.
    private func timeOrTrust(
        _ leaf: Certificate,
        through bounded: [Certificate],
        at time: Date,
        reason: String?
    )
        -> PKIError
    {
        let issuers = (anchors + bounded).filter { $0.subject == leaf.issuer }
        for certificate in [leaf] + issuers {
            if time > certificate.notValidAfter {
                return PKIError(.expired, "\(certificate.subject) expired at \(certificate.notValidAfter)")
            }
            if time < certificate.notValidBefore {
                return PKIError(.notYetValid, "\(certificate.subject) is valid from \(certificate.notValidBefore)")
            }
        }
        return PKIError(
            .untrustedIssuer,
            "no chain from \(leaf.subject) reaches a trusted anchor: \(reason ?? "no issuer found")"
        )
    }
}

/// The leaf's extended key usage must include the purpose (when the extension is present it is honoured; a leaf
/// without it fails a specific purpose), and its key usage must allow signatures.
struct UsagePolicy: VerifierPolicy {
    let purpose: ChainValidator.Purpose

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] {
        [.X509ExtensionID.extendedKeyUsage, .X509ExtensionID.keyUsage]
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        let leaf = chain.leaf
        let keyUsage: KeyUsage?
        do { keyUsage = try leaf.extensions.keyUsage } catch {
            return .failsToMeetPolicy(reason: "its key usage extension is malformed")
        }
        if let keyUsage, !keyUsage.digitalSignature {
            return .failsToMeetPolicy(reason: "its key usage does not include digitalSignature")
        }
        let wanted: ExtendedKeyUsage.Usage
        switch purpose {
        case .any: return .meetsPolicy
        case .clientAuth: wanted = .clientAuth
        case .serverAuth: wanted = .serverAuth
        }
        let extendedUsage: ExtendedKeyUsage?
        do { extendedUsage = try leaf.extensions.extendedKeyUsage } catch {
            return .failsToMeetPolicy(reason: "its extended key usage extension is malformed")
        }
        guard let usages = extendedUsage else {
            return .failsToMeetPolicy(reason: "it has no extended key usage")
        }
        guard usages.contains(wanted) || usages.contains(.any) else {
            return .failsToMeetPolicy(reason: "its extended key usage is \(usages.map { "\($0)" })")
        }
        return .meetsPolicy
    }
}

/// The leaf's subject alternative names must include the expected name, if any (host names through
/// swift-certificates' `ServerIdentityPolicy`).
struct NamePolicy: VerifierPolicy {
    let name: ChainValidator.ExpectedName?

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.subjectAlternativeName] }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard let name else { return .meetsPolicy }
        // A malformed SAN extension names nothing, so no expected name matches it: the policy fails.
        let names = (try? chain.leaf.extensions.subjectAlternativeNames).map { Array($0) } ?? []
        switch name {
        case .host(let host):
            let isAddress = IPAddressText.bytes(host) != nil
            var policy = ServerIdentityPolicy(serverHostname: isAddress ? nil : host, serverIP: isAddress ? host : nil)
            return policy.chainMeetsPolicyRequirements(chain: chain)
        case .email(let address):
            let found = names.contains { if case .rfc822Name(let value) = $0 { value == address } else { false } }
            return found ? .meetsPolicy : .failsToMeetPolicy(reason: "no rfc822Name \(address)")
        case .uri(let uri):
            let found = names.contains {
                if case .uniformResourceIdentifier(let value) = $0 { value == uri } else { false }
            }
            return found ? .meetsPolicy : .failsToMeetPolicy(reason: "no URI \(uri)")
        }
    }
}
