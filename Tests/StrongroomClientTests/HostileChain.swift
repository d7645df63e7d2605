// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import SwiftASN1
import X509

/// A leaf and `count` self-made intermediates that share one subject and one key, so each intermediate is a valid
/// issuer of every other (distinct names keep them distinct certificates): an unbounded path builder tries every
/// ordering, about e·count! signature checks. Made at test time, as an attacker would.
struct HostileChain {
    let key: P256.Signing.PrivateKey
    let leaf: Certificate
    let intermediates: [Certificate]

    /// `sharedKey: false` gives each intermediate its own key (still one subject): a chain that dropping duplicates
    /// cannot shorten.
    init(intermediates count: Int, sharedKey: Bool = true, clientID: String? = nil) throws {
        let now = Date()
        let key = P256.Signing.PrivateKey()
        self.key = key
        let evil = try DistinguishedName { CommonName("Hostile CA") }
        intermediates = try (0..<count).map { index in
            try Certificate(
                version: .v3,
                serialNumber: .init(),
                publicKey: .init(sharedKey ? key.publicKey : P256.Signing.PrivateKey().publicKey),
                notValidBefore: now - 60,
                notValidAfter: now + 3600,
                issuer: evil,
                subject: evil,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true))
                    SubjectAlternativeNames([.dnsName("i\(index).hostile.invalid")])
                },
                issuerPrivateKey: .init(key)
            )
        }
        var names: [GeneralName] = [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        if let clientID { names.append(.uniformResourceIdentifier("urn:strongroom:client:\(clientID)")) }
        leaf = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 60,
            notValidAfter: now + 3600,
            issuer: evil,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(key)
        )
    }

    /// Writes `leaf.pem`, `leaf.key` (0600) and `chain.pem` (the intermediates) into `directory`.
    func write(to directory: URL) throws {
        try leaf.serializeAsPEM().pemString.write(
            to: directory.appending(path: "leaf.pem"),
            atomically: true,
            encoding: .utf8
        )
        let keyFile = directory.appending(path: "leaf.key")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        let chain = try intermediates.map { try $0.serializeAsPEM().pemString }.joined(separator: "\n")
        try chain.write(to: directory.appending(path: "chain.pem"), atomically: true, encoding: .utf8)
    }
}
