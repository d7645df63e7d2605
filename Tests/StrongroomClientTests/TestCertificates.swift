// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomTesting
import SwiftASN1
import X509

/// A throw-away private CA with a server certificate for `localhost`/`127.0.0.1` and a rogue one: same CA, same
/// names, another key — what a mis-issuing or compromised CA would hand an attacker. Made by ``TestPKI`` at the
/// current time, since the TLS peers these go to check them against their own clocks.
struct TestCertificates {
    let caKey: P256.Signing.PrivateKey
    let ca: Certificate
    let serverKey: P256.Signing.PrivateKey
    let server: Certificate
    let rogueKey: P256.Signing.PrivateKey
    let rogue: Certificate

    init() throws {
        let pki = try TestPKI(referenceTime: Date())
        (caKey, ca) = (pki.root.key, pki.root.certificate)
        let server = try pki.localhost()
        (serverKey, self.server) = (server.key, server.certificate)
        let rogue = try pki.localhost()
        (rogueKey, self.rogue) = (rogue.key, rogue.certificate)
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
