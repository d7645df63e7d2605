// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import SwiftASN1
import X509

/// A throw-away private CA with a server certificate for `localhost`/`127.0.0.1` and a rogue one: same CA, same
/// names, another key — what a mis-issuing or compromised CA would hand an attacker.
struct TestCertificates {
    let caKey: P256.Signing.PrivateKey
    let ca: Certificate
    let serverKey: P256.Signing.PrivateKey
    let server: Certificate
    let rogueKey: P256.Signing.PrivateKey
    let rogue: Certificate

    init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        self.caKey = caKey
        let caName = try DistinguishedName { CommonName("Strongroom Test CA") }
        ca = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: now - 60,
            notValidAfter: now + 3600,
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        func leaf(_ key: P256.Signing.PrivateKey) throws -> Certificate {
            try Certificate(
                version: .v3,
                serialNumber: .init(),
                publicKey: .init(key.publicKey),
                notValidBefore: now - 60,
                notValidAfter: now + 3600,
                issuer: caName,
                subject: try DistinguishedName { CommonName("localhost") },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames([
                        .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    ])
                },
                issuerPrivateKey: .init(caKey)
            )
        }
        serverKey = P256.Signing.PrivateKey()
        server = try leaf(serverKey)
        rogueKey = P256.Signing.PrivateKey()
        rogue = try leaf(rogueKey)
    }

    /// Writes `certificate` and `key` as PEM files in `directory` and returns the server arguments that use them.
    func serverArguments(
        _ certificate: Certificate,
        _ key: P256.Signing.PrivateKey,
        in directory: URL
    ) throws -> [String] {
        let chain = directory.appending(path: "chain-\(UUID().uuidString).pem")
        let keyFile = directory.appending(path: "key-\(UUID().uuidString).pem")
        try certificate.serializeAsPEM().pemString.write(to: chain, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        // The server refuses a private key that group or others may read.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        return ["--tls-certificate-chain", chain.path, "--tls-private-key", keyFile.path]
    }
}
