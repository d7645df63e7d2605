// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// A certificate authority for client certificates: a P-256 or P-384 key in a folder (mode 0600, refused when group
/// or others can read it) and its certificate, self-signed or issued by an offline root. The Strongroom server's CA
/// (`strongroom-server ca init`) is one; the server adds its enrollment rules and store-backed revocation.
///
/// Files in its folder: `ca-key.pem` (PKCS#8), `ca-chain.pem` (the CA certificate, then its root when it is an
/// intermediate); another `prefix` than `ca` names them `<prefix>-key.pem` and `<prefix>-chain.pem`, so that two CAs
/// (the server's client CA and the CA of its TLS certificate) can be told apart.
public struct CertificateAuthority: Sendable {
    /// The CA's signing key.
    package let key: Certificate.PrivateKey
    /// The CA certificate first, then its issuers up to the root.
    public let chain: [Certificate]

    /// The CA certificate.
    public var certificate: Certificate { chain[0] }

    /// Whether `folder` holds a CA's files (named with `prefix`).
    public static func exists(at folder: String, prefix: String = "ca") -> Bool {
        FileManager.default.fileExists(atPath: folder + "/\(prefix)-key.pem")
    }

    /// Creates a CA whose files go to `folder` (created with mode 0700): a new key of `algorithm` (P-256 or P-384)
    /// and a certificate named `name`, valid for `days`. With `offlineRoot`, a root CA is created there (its key never
    /// enters `folder`) and this CA is an intermediate under it (path length 0). The files are named with `prefix`.
    ///
    /// - Throws: ``PKIError/Code/unsupported`` for an algorithm other than P-256/P-384,
    ///   ``PKIError/Code/invalidParameters`` when `folder` holds a CA already or `days` is outside 1 to 36 500.
    public static func initialize(
        at folder: String,
        algorithm: KeyAlgorithm = .p256,
        name: String = "Strongroom client CA",
        days: Int = 3650,
        offlineRoot: String? = nil,
        prefix: String = "ca",
        now: Date = Date()
    ) throws -> CertificateAuthority {
        guard algorithm == .p256 || algorithm == .p384 else {
            throw PKIError(.unsupported, "the CA key is P-256 or P-384")
        }
        guard (1...36_500).contains(days) else { throw PKIError(.invalidParameters, "--days is 1 to 36500") }
        guard !exists(at: folder, prefix: prefix) else {
            throw PKIError(.exists, "\(folder) already holds a CA")
        }
        let notAfter = now.addingTimeInterval(TimeInterval(days) * 86_400)
        let key = try algorithm.generatePrivateKey()
        // With an offline root, the root is made and written there first; the server's CA is then its intermediate.
        var root: (certificate: Certificate, key: Certificate.PrivateKey)?
        if let offlineRoot {
            let rootKey = try algorithm.generatePrivateKey()
            let certificate = try makeCACertificate(
                key: rootKey,
                subject: try DistinguishedName { CommonName(name + " root") },
                issuer: nil,
                pathLength: 1,
                notBefore: now,
                notAfter: notAfter.addingTimeInterval(86_400)
            )
            try writeFiles(key: rootKey, chain: [certificate], to: offlineRoot, prefix: "root")
            root = (certificate, rootKey)
        }
        let certificate = try makeCACertificate(
            key: key,
            subject: try DistinguishedName { CommonName(name) },
            issuer: root,
            pathLength: 0,
            notBefore: now,
            notAfter: notAfter
        )
        let chain = [certificate] + (root.map { [$0.certificate] } ?? [])
        try writeFiles(key: key, chain: chain, to: folder, prefix: prefix)
        return CertificateAuthority(key: key, chain: chain)
    }

    /// Loads the CA whose files are in `folder` (named with `prefix`), or nil when there is none.
    ///
    /// - Throws: ``PKIError/Code/exposedKey`` when the key file is readable by group or others (it may have leaked),
    ///   ``PKIError/Code/invalidEncoding`` when a file does not parse, ``PKIError/Code/keyMismatch`` when the key
    ///   does not match the certificate.
    public static func load(at folder: String, prefix: String = "ca") throws(PKIError) -> CertificateAuthority? {
        let keyPath = folder + "/\(prefix)-key.pem"
        switch AtomicFile.privacy(of: keyPath) {
        case .missing: return nil
        case .ownerOnly: break
        case .exposed(let reason):
            throw PKIError(.exposedKey, "the CA key is refused: \(reason) (treat the CA as compromised if it leaked)")
        }
        do {
            let key = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: keyPath, encoding: .utf8))
            let chain = try CertificateBundle.certificates(
                from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/\(prefix)-chain.pem")))
            )
            guard chain[0].publicKey == key.publicKey else {
                throw PKIError(.keyMismatch, "the CA key does not match \(prefix)-chain.pem")
            }
            return CertificateAuthority(key: key, chain: chain)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.invalidEncoding, "the CA in \(folder) cannot be read: \(error)")
        }
    }

    /// The chain as PEM, CA certificate first.
    public func chainPEM() throws -> String {
        try chain.map { try $0.pemString() + "\n" }.joined()
    }

    /// Issues a client certificate for `publicKey`: subject `CN=<clientID>`, SAN URI
    /// `urn:strongroom:client:<clientID>`, EKU clientAuth only, valid from a minute before `now` for `lifetime`
    /// (never past the CA's own end).
    ///
    /// - Throws: ``PKIError/Code/expired`` once the CA certificate has expired.
    public func issueClientCertificate(
        for publicKey: Certificate.PublicKey,
        clientID: String,
        lifetime: Duration,
        now: Date
    ) throws -> Certificate {
        try issueLeaf(
            for: publicKey,
            subject: try DistinguishedName { CommonName(clientID) },
            usage: .clientAuth,
            names: [.uniformResourceIdentifier(ClientCertificateName.uri(for: clientID))],
            lifetime: lifetime,
            now: now
        )
    }

    /// An end-entity certificate for `publicKey`: `subject`, `names` as its SANs, EKU `usage` only, key usage
    /// digitalSignature, valid from a minute before `now` for `lifetime` (never past the CA's own end).
    func issueLeaf(
        for publicKey: Certificate.PublicKey,
        subject: DistinguishedName,
        usage: ExtendedKeyUsage.Usage,
        names: [GeneralName],
        lifetime: Duration,
        now: Date
    ) throws -> Certificate {
        let notBefore = now.addingTimeInterval(-60)
        let notAfter = min(now.addingTimeInterval(TimeInterval(lifetime.components.seconds)), certificate.notValidAfter)
        guard notAfter > now else { throw PKIError(.expired, "the CA certificate has expired") }
        let authorityKey = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: certificate.subject,
            subject: subject,
            signatureAlgorithm: try KeyAlgorithm(of: key.publicKey).signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: publicKey)
                if let authorityKey { AuthorityKeyIdentifier(keyIdentifier: authorityKey) }
            },
            issuerPrivateKey: key
        )
    }

    /// A CA certificate for `key`: self-signed without `issuer`, else signed by the issuer's key.
    private static func makeCACertificate(
        key: Certificate.PrivateKey,
        subject: DistinguishedName,
        issuer: (certificate: Certificate, key: Certificate.PrivateKey)?,
        pathLength: Int,
        notBefore: Date,
        notAfter: Date
    ) throws -> Certificate {
        let issuerKey = issuer?.key ?? key
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: notBefore.addingTimeInterval(-60),
            notValidAfter: notAfter,
            issuer: issuer?.certificate.subject ?? subject,
            subject: subject,
            signatureAlgorithm: try KeyAlgorithm(of: issuerKey.publicKey).signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: pathLength))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
                if let identifier = try issuer?.certificate.extensions.subjectKeyIdentifier?.keyIdentifier {
                    AuthorityKeyIdentifier(keyIdentifier: identifier)
                }
            },
            issuerPrivateKey: issuerKey
        )
    }

    /// Writes `<prefix>-key.pem` (0600, new only) and `<prefix>-chain.pem` into `folder` (created 0700).
    package static func writeFiles(
        key: Certificate.PrivateKey,
        chain: [Certificate],
        to folder: String,
        prefix: String
    )
        throws
    {
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let pem = try key.serializeAsPEM().pemString
        try AtomicFile.write(Data(pem.utf8), to: folder + "/\(prefix)-key.pem", mode: .createNew)
        let chainPEM = try chain.map { try $0.pemString() + "\n" }.joined()
        try AtomicFile.write(Data(chainPEM.utf8), to: folder + "/\(prefix)-chain.pem", mode: .createNew)
    }
}
