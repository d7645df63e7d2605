// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomPKI
import StrongroomWire
import SwiftASN1
import X509

/// What a CSR must satisfy before the CA signs it for a client: it parses, its signature verifies, its key is a
/// supported type, and it names this client and nothing else, for client authentication only.
enum EnrollmentRules {
    /// The checked CSR's public key.
    ///
    /// - Throws: 400 for a CSR that does not parse, does not verify, has an unsupported key, asks for names other
    ///   than the client's URI, or for a usage other than clientAuth; 403 for a CSR naming another client.
    static func check(_ pem: String, for clientID: String) throws -> Certificate.PublicKey {
        let csr: CertificateSigningRequest
        do {
            csr = try CertificateSigningRequest(encoded: Array(pem.utf8))
            try csr.verifySignature()
        } catch {
            throw ServerError.badRequest("the CSR is refused: \(error.message)")
        }
        // A key type outside KeyAlgorithm falls to the refusing default case.
        switch try? KeyAlgorithm(of: csr.publicKey) {
        case .none: throw ServerError.badRequest("the CSR's key type is not supported")
        case .rsa(let bits) where bits < 2048: throw ServerError.badRequest("RSA keys below 2048 bits are refused")
        default: break
        }
        for name in csr.subject.flatMap({ $0 }) where name.type == .RDNAttributeType.commonName {
            let commonName = String(describing: name.value)
            guard commonName.lowercased() == clientID else {
                throw ServerError.forbidden(
                    "the CSR's common name \(commonName.prefix(64)) is not this client's ID (\(clientID)): a client "
                        + "certificate is named after its client, so give that ID as the common name or none"
                )
            }
        }
        let extensions = csr.requestedExtensions
        let names: SubjectAlternativeNames?
        let usage: ExtendedKeyUsage?
        let constraints: BasicConstraints?
        do {
            names = try extensions.subjectAlternativeNames
            usage = try extensions.extendedKeyUsage
            constraints = try extensions.basicConstraints
        } catch {
            throw ServerError.badRequest("the CSR's requested extensions do not parse")
        }
        for name in names ?? SubjectAlternativeNames([]) {
            guard case .uniformResourceIdentifier(let uri) = name, uri.hasPrefix(ClientCertificateName.prefix) else {
                throw ServerError.badRequest(
                    "a client certificate names only its client (\(ClientCertificateName.uri(for: clientID)))"
                )
            }
            guard ClientCertificateName.clientID(in: uri) == clientID else {
                throw ServerError.forbidden("the CSR names another client")
            }
        }
        if let usage, Array(usage) != [.clientAuth] {
            throw ServerError.badRequest("a client certificate is for client authentication (clientAuth) only")
        }
        if case .isCertificateAuthority = constraints {
            throw ServerError.badRequest("a client certificate cannot be a CA")
        }
        return csr.publicKey
    }
}
