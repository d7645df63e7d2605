// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomPKI
import StrongroomTesting
import Testing
import X509

/// The CA core the server's `ca init` and enrollment use: files created owner-only, loaded back, refused when exposed
/// or already there, and the client certificates it issues validate under it (with and without an offline root).
@Suite struct CertificateAuthorityTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let clientID = "0b0c0d0e-0000-4000-8000-000000000001"

    @Test("a CA made in a folder loads back and issues client certificates that validate under its chain")
    func initializeLoadIssue() async throws {
        try await withTemporaryDirectory { directory in
            for offlineRoot in [nil, directory.appending(path: "root").path] {
                let folder = directory.appending(path: offlineRoot == nil ? "ca" : "ca-intermediate").path
                let made = try CertificateAuthority.initialize(at: folder, offlineRoot: offlineRoot, now: Self.now)
                #expect(CertificateAuthority.exists(at: folder))
                let loaded = try #require(try CertificateAuthority.load(at: folder))
                #expect(loaded.chain == made.chain)
                #expect(loaded.chain.count == (offlineRoot == nil ? 1 : 2))
                let key = P256.Signing.PrivateKey()
                let leaf = try loaded.issueClientCertificate(
                    for: Certificate.PublicKey(key.publicKey),
                    clientID: Self.clientID,
                    lifetime: .seconds(3600),
                    now: Self.now
                )
                #expect(ClientCertificateName.clientID(of: leaf) == Self.clientID)
                let validator = ChainValidator(
                    anchors: [try #require(loaded.chain.last)],
                    intermediates: Array(loaded.chain.dropLast())
                )
                let chain = try await validator.validate(leaf, purpose: .clientAuth, at: Self.now)
                #expect(chain.count == loaded.chain.count + 1)
                let mode = try FileManager.default.attributesOfItem(atPath: folder + "/ca-key.pem")[.posixPermissions]
                #expect((mode as? Int) == 0o600)
            }
        }
    }

    @Test("a second CA in the same folder, a key others can read, an expired CA and a bad algorithm are refused")
    func refusals() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appending(path: "ca").path
            #expect(try CertificateAuthority.load(at: folder) == nil)
            let authority = try CertificateAuthority.initialize(at: folder, days: 1, now: Self.now)
            #expect(throws: PKIError.self) { try CertificateAuthority.initialize(at: folder, now: Self.now) }
            #expect(throws: PKIError.self) {
                try CertificateAuthority.initialize(at: folder + "2", algorithm: .ed25519, now: Self.now)
            }
            let expired = #expect(throws: PKIError.self) {
                try authority.issueClientCertificate(
                    for: Certificate.PublicKey(P256.Signing.PrivateKey().publicKey),
                    clientID: Self.clientID,
                    lifetime: .seconds(60),
                    now: Self.now.addingTimeInterval(2 * 86_400)
                )
            }
            #expect(expired?.code == .expired)
            chmod(folder + "/ca-key.pem", 0o644)
            let exposed = #expect(throws: PKIError.self) { try CertificateAuthority.load(at: folder) }
            #expect(exposed?.code == .exposedKey)
        }
    }

    @Test("a server CA under its own file prefix issues server certificates for DNS names and IP addresses")
    func serverCertificates() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appending(path: "tls").path
            let made = try CertificateAuthority.initialize(at: folder, prefix: "server-ca", now: Self.now)
            #expect(
                CertificateAuthority.exists(at: folder, prefix: "server-ca") && !CertificateAuthority.exists(at: folder)
            )
            let loaded = try #require(try CertificateAuthority.load(at: folder, prefix: "server-ca"))
            #expect(loaded.chain == made.chain)
            let key = P256.Signing.PrivateKey()
            let leaf = try loaded.issueServerCertificate(
                for: Certificate.PublicKey(key.publicKey),
                dnsNames: ["Api.Example", "*.edge.example"],
                ipAddresses: [try #require(IPAddress("127.0.0.1")), try #require(IPAddress("::1"))],
                lifetime: .seconds(86_400),
                now: Self.now
            )
            let validator = ChainValidator(anchors: loaded.chain)
            for host in ["api.example", "a.edge.example", "127.0.0.1", "::1"] {
                _ = try await validator.validate(leaf, purpose: .serverAuth, name: .host(host), at: Self.now)
            }
            await #expect(throws: PKIError.self) {
                try await validator.validate(leaf, purpose: .serverAuth, name: .host("other.example"), at: Self.now)
            }
            await #expect(throws: PKIError.self) {
                try await validator.validate(leaf, purpose: .clientAuth, at: Self.now)
            }
            for names in [[], ["bad name"], ["-x.example"], [String(repeating: "a", count: 64) + ".example"]] {
                #expect(throws: PKIError.self) {
                    try loaded.issueServerCertificate(
                        for: Certificate.PublicKey(key.publicKey),
                        dnsNames: names,
                        ipAddresses: [],
                        lifetime: .seconds(60),
                        now: Self.now
                    )
                }
            }
            #expect(IPAddress("300.1.1.1") == nil && IPAddress("localhost") == nil)
        }
    }
}
