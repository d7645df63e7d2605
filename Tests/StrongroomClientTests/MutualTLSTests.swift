// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomPKI
import StrongroomTesting
import StrongroomWire
import SwiftASN1
import Testing
import X509

/// The server's CA, enrollment and mutual TLS, against the real server executable, with `curl` and `openssl` as the
/// independent clients.
@Suite struct MutualTLSTests {
    /// A running mutual-TLS server and what a test needs around it.
    struct Setup {
        let server: ServerProcess
        let directory: URL
        let data: URL
        let storage: [String]
        let certificates: TestCertificates
        var url: String { "https://localhost:\(server.port)" }
        var options: Client.TransportOptions {
            Client.TransportOptions(
                serverTrust: ServerTrust(roots: .certificates([certificates.ca])),
                requestTimeout: ClientTestServer.unhurried.requestTimeout
            )
        }

        /// Registers a client over server-only TLS.
        func register(_ name: String) async throws -> Client.Configuration {
            try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: name,
                apiURL: try #require(URL(string: url)),
                options: options
            )
        }

        /// Runs `strongroom-server` with `arguments` plus the storage arguments.
        func serverCommand(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
            try await ExternalProcess.run(ServerProcess.executable, arguments: arguments + storage)
        }

        /// `curl` against the server; the output ends with a line holding the HTTP status (000 when no answer).
        func curl(_ path: String, _ arguments: [String] = []) async throws -> (status: Int, body: String) {
            let outcome = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/curl"),
                arguments: ["-sS", "--max-time", "20", "--cacert", "server-ca.pem", "-w", "\n%{http_code}"] + arguments
                    + [url + path],
                directory: directory
            )
            let lines = outcome.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        /// A bearer token for a registered client, fetched by curl with its API key.
        func token(for configuration: Client.Configuration) async throws -> String {
            let secret = configuration.apiSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            let answer = try await curl(
                "/v1/auth/token",
                ["-u", "\(configuration.apiKeyID):\(secret)", "-d", "grant_type=client_credentials"]
            )
            try #require(answer.status == 200, "\(answer)")
            return try JSONDecoder().decode(TokenResponse.self, from: Data(answer.body.utf8)).accessToken
        }

        /// openssl makes `<name>.key` and `<name>.csr` for `clientID`, the server issues `<name>.pem` to the client
        /// `token` authenticates; the enrollment answer.
        func enrollWithOpenSSL(_ name: String, clientID: String, token: String) async throws -> EnrollmentResponse {
            let made = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: [
                    "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(clientID)",
                ],
                directory: directory
            )
            try #require(made.status == 0, "\(made.output)")
            let csr = try String(contentsOf: directory.appending(path: "\(name).csr"), encoding: .utf8)
            let enrolled = try await enroll(csr, token: token)
            try #require(enrolled.status == 201, "\(enrolled)")
            let issued = try JSONDecoder().decode(EnrollmentResponse.self, from: Data(enrolled.body.utf8))
            try issued.certificate.write(
                to: directory.appending(path: "\(name).pem"),
                atomically: true,
                encoding: .utf8
            )
            return issued
        }

        /// POSTs `csr` to the enrollment route with `token`.
        func enroll(_ csr: String, token: String?) async throws -> (status: Int, body: String) {
            let body = directory.appending(path: "enroll-\(UUID().uuidString).json")
            try JSONEncoder().encode(EnrollmentRequest(csr: csr)).write(to: body)
            return try await curl(
                "/v1/pki/enroll",
                ["-d", "@\(body.lastPathComponent)", "-H", "Content-Type: application/json"]
                    + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
            )
        }
    }

    /// `ca init`, then the server over TLS asking for client certificates (`mode`), on `engine`.
    static func withMutualTLS<R>(
        engine: TestEngine,
        mode: String = "optional",
        serverArguments: [String] = [],
        _ body: (Setup) async throws -> R
    ) async throws -> R {
        try await withTemporaryDirectory { directory in
            let data = directory.appending(path: "data")
            func start(_ storage: [String]) async throws -> R {
                let initialised = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: ["ca", "init"] + storage
                )
                try #require(initialised.status == 0, "\(initialised.output)")
                let certificates = try TestCertificates()
                try certificates.ca.serializeAsPEM().pemString.write(
                    to: directory.appending(path: "server-ca.pem"),
                    atomically: true,
                    encoding: .utf8
                )
                let server = try await ServerProcess(
                    arguments: storage + ["--registration-token", ClientTestServer.registrationToken]
                        + certificates.serverArguments(certificates.server, certificates.serverKey, in: directory)
                        + ["--tls-client-ca", data.appending(path: "ca/ca-chain.pem").path]
                        + ["--client-certificates", mode] + ServerProcess.patientIdle + serverArguments,
                    scheme: "https"
                )
                defer { server.stop() }
                return try await body(
                    Setup(
                        server: server,
                        directory: directory,
                        data: data,
                        storage: storage,
                        certificates: certificates
                    )
                )
            }
            switch engine {
            case .sqlite: return try await start(["--data-directory", data.path])
            case .postgres:
                return try await TestDatabase.withPostgres {
                    // As a deployment of several instances names it: the CA's folder by configuration.
                    try await start([
                        "--data-directory", data.path, "--database-url", $0, "--ca-directory",
                        data.appending(path: "ca").path,
                    ])
                }
            }
        }
    }

    /// A CSR for a fresh P-256 key: (CSR PEM, key PEM).
    static func request(_ configure: (inout SigningRequestTemplate) -> Void) throws -> (csr: String, key: String) {
        let key = try KeyAlgorithm.p256.generatePrivateKey()
        var template = SigningRequestTemplate()
        template.organization = "Strongroom tests"  // a subject the server ignores
        configure(&template)
        let csr = try template.signingRequest(signer: InMemorySigner(key))
        return (try csr.pemString(), try key.serializeAsPEM().pemString)
    }

    @Test(
        "mutual TLS end to end: ca init, enroll by CSR, curl --cert reads a record, another client's token with this certificate is refused, revocation ends it at the next handshake",
        arguments: TestEngine.available
    )
    func endToEnd(engine: TestEngine) async throws {
        try await Self.withMutualTLS(engine: engine) { setup in
            let keyMode =
                try FileManager.default.attributesOfItem(
                    atPath: setup.data.appending(path: "ca/ca-key.pem").path
                )[.posixPermissions] as? Int
            #expect(keyMode == 0o600)
            let alice = try await setup.register("alice")
            let bob = try await setup.register("bob")
            let aliceID = alice.clientID.uuidString.lowercased()
            let record = try await Client(configuration: alice, options: setup.options)
                .write(type: "mtls", data: ["secret": "over mutual TLS"])
            let aliceToken = try await setup.token(for: alice)
            let bobToken = try await setup.token(for: bob)

            // The CA chain is public.
            let chain = try await setup.curl("/v1/pki/ca")
            #expect(chain.status == 200 && chain.body.contains("BEGIN CERTIFICATE"))

            // openssl makes the key and CSR; the server issues a certificate bound to alice.
            let issued = try await setup.enrollWithOpenSSL("alice", clientID: aliceID, token: aliceToken)
            let certificate = try Certificate(pemEncoded: issued.certificate)
            #expect(
                try certificate.extensions.subjectAlternativeNames?.contains(
                    .uniformResourceIdentifier("urn:strongroom:client:\(aliceID)")
                ) == true
            )
            #expect(try certificate.extensions.extendedKeyUsage.map(Array.init) == [.clientAuth])
            let lifetime = certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore)
            #expect(lifetime <= 86_400 + 60)
            let verified = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: [
                    "verify", "-purpose", "sslclient", "-CAfile", setup.data.appending(path: "ca/ca-chain.pem").path,
                    "alice.pem",
                ],
                directory: setup.directory
            )
            #expect(verified.status == 0, "\(verified.output)")

            // curl with the enrolled identity reads alice's record over mutual TLS.
            let identity = ["--cert", "alice.pem", "--key", "alice.key"]
            let path = "/v1/storage/records/\(record.meta.recordID.uuidString.lowercased())"
            let read = try await setup.curl(path, identity + ["-H", "Authorization: Bearer \(aliceToken)"])
            #expect(read.status == 200 && read.body.contains(record.meta.recordID.uuidString.lowercased()), "\(read)")
            // Without a certificate (optional mode) the token alone still works.
            #expect(try await setup.curl(path, ["-H", "Authorization: Bearer \(aliceToken)"]).status == 200)
            // Alice's certificate with bob's token: the TLS and E3DB identities differ.
            let mixed = try await setup.curl(path, identity + ["-H", "Authorization: Bearer \(bobToken)"])
            #expect(mixed.status == 401 && mixed.body.contains("belongs to another client"), "\(mixed)")

            // Revocation takes effect on the next handshake.
            let revoked = try await setup.serverCommand(["ca", "revoke", issued.serial])
            #expect(revoked.status == 0, "\(revoked.output)")
            let listed = try await setup.serverCommand(["ca", "list", "--client", aliceID])
            #expect(listed.output.contains(issued.serial) && listed.output.contains("revoked"), "\(listed.output)")
            let afterRevocation = try await setup.curl(path, identity + ["-H", "Authorization: Bearer \(aliceToken)"])
            #expect(afterRevocation.status == 0, "\(afterRevocation)")
        }
    }

    @Test(
        "enrollment faults: no credentials, another client's CSR, extra names, serverAuth, a tampered CSR, the daily quota"
    )
    func enrollmentFaults() async throws {
        let quota = ["--certificates-per-client-per-day", "2"]
        try await Self.withMutualTLS(engine: .sqlite, serverArguments: quota) { setup in
            let alice = try await setup.register("alice")
            let token = try await setup.token(for: alice)
            let aliceID = alice.clientID.uuidString.lowercased()
            let good = try Self.request { $0.uris = ["urn:strongroom:client:\(aliceID)"] }
            #expect(try await setup.enroll(good.csr, token: nil).status == 401)
            #expect(try await setup.enroll(good.csr, token: "not-a-token").status == 401)

            let other = UUID().uuidString.lowercased()
            let cases: [(String, Int, (inout SigningRequestTemplate) -> Void)] = [
                ("another client's URI", 403, { $0.uris = ["urn:strongroom:client:\(other)"] }),
                ("another client's CN", 403, { $0.commonName = other }),
                ("a DNS name", 400, { $0.dnsNames = ["evil.example"] }),
                ("an email", 400, { $0.emailAddresses = ["a@example.com"] }),
                ("serverAuth", 400, { $0.extendedKeyUsage = [.serverAuth] }),
                ("clientAuth and serverAuth", 400, { $0.extendedKeyUsage = [.clientAuth, .serverAuth] }),
            ]
            for (name, status, configure) in cases {
                let answer = try await setup.enroll(try Self.request(configure).csr, token: token)
                #expect(answer.status == status, "\(name): \(answer)")
            }
            // A flipped byte inside the signed part: the signature no longer verifies.
            let der = try CertificateSigningRequest(encoded: Array(good.csr.utf8)).derBytes()
            var tampered = der
            tampered[tampered.count / 3] ^= 0x01
            let tamperedPEM = PEMDocument(type: "CERTIFICATE REQUEST", derBytes: tampered).pemString
            #expect(try await setup.enroll(tamperedPEM, token: token).status == 400)
            #expect(try await setup.enroll("not a CSR", token: token).status == 400)
            // The good one still enrolls: nothing above left state behind. Two a day, then 429.
            #expect(try await setup.enroll(good.csr, token: token).status == 201)
            #expect(try await setup.enroll(good.csr, token: token).status == 201)
            let third = try await setup.enroll(good.csr, token: token)
            #expect(third.status == 429 && third.body.contains("try again later"), "\(third)")
        }
    }

    @Test("expired, not yet valid, wrong-usage, other-CA and self-signed client certificates fail the handshake")
    func badCertificates() async throws {
        try await Self.withMutualTLS(engine: .sqlite) { setup in
            let caKey = try Certificate.PrivateKey(
                pemEncoded: try String(contentsOf: setup.data.appending(path: "ca/ca-key.pem"), encoding: .utf8)
            )
            let caChain = try String(contentsOf: setup.data.appending(path: "ca/ca-chain.pem"), encoding: .utf8)
            let ca = try Certificate(pemEncoded: caChain)
            let client = UUID().uuidString.lowercased()
            let now = Date()
            func make(
                _ name: String,
                issuer: (DistinguishedName, Certificate.PrivateKey)? = nil,
                from start: Date = now.addingTimeInterval(-60),
                until end: Date = now.addingTimeInterval(3600),
                usage: ExtendedKeyUsage.Usage = .clientAuth
            ) throws -> [String] {
                let key = try KeyAlgorithm.p256.generatePrivateKey()
                let subject = try DistinguishedName { CommonName(client) }
                let (issuerName, issuerKey) = issuer ?? (subject, key)
                let certificate = try Certificate(
                    version: .v3,
                    serialNumber: .init(),
                    publicKey: key.publicKey,
                    notValidBefore: start,
                    notValidAfter: end,
                    issuer: issuerName,
                    subject: subject,
                    signatureAlgorithm: .ecdsaWithSHA256,
                    extensions: try Certificate.Extensions {
                        Critical(BasicConstraints.notCertificateAuthority)
                        try ExtendedKeyUsage([usage])
                        SubjectAlternativeNames([.uniformResourceIdentifier("urn:strongroom:client:\(client)")])
                    },
                    issuerPrivateKey: issuerKey
                )
                try certificate.pemString().write(
                    to: setup.directory.appending(path: "\(name).pem"),
                    atomically: true,
                    encoding: .utf8
                )
                try key.serializeAsPEM().pemString.write(
                    to: setup.directory.appending(path: "\(name).key"),
                    atomically: true,
                    encoding: .utf8
                )
                return ["--cert", "\(name).pem", "--key", "\(name).key"]
            }
            let ours = (ca.subject, caKey)
            let stranger = try TestCertificates()
            let cases: [(String, [String])] = [
                ("control", try make("control", issuer: ours)),
                ("expired", try make("expired", issuer: ours, from: now - 7200, until: now - 3600)),
                ("not yet valid", try make("future", issuer: ours, from: now + 3600, until: now + 7200)),
                ("wrong usage", try make("server", issuer: ours, usage: .serverAuth)),
                ("other CA", try make("other", issuer: (stranger.ca.subject, Certificate.PrivateKey(stranger.caKey)))),
                ("self-signed", try make("self")),
            ]
            for (name, identity) in cases {
                let answer = try await setup.curl("/health", identity)
                #expect((answer.status == 200) == (name == "control"), "\(name): \(answer)")
            }
        }
    }

    @Test(
        "required mode: no certificate, no route; a certificate from `ca issue` opens it; a loose CA key stops start-up"
    )
    func requiredMode() async throws {
        try await Self.withMutualTLS(engine: .sqlite) { setup in
            let alice = try await setup.register("alice")
            let token = try await setup.token(for: alice)
            // The operator path: a CSR file and `ca issue` for a registered client.
            let request = try Self.request { _ in }
            try request.csr.write(to: setup.directory.appending(path: "op.csr"), atomically: true, encoding: .utf8)
            try request.key.write(to: setup.directory.appending(path: "op.key"), atomically: true, encoding: .utf8)
            let issue = ["ca", "issue", "--csr", setup.directory.appending(path: "op.csr").path, "--client"]
            let unknown = try await setup.serverCommand(issue + [UUID().uuidString])
            #expect(unknown.status != 0 && unknown.output.contains("no enabled client"), "\(unknown.output)")
            let issued = try await setup.serverCommand(issue + [alice.clientID.uuidString])
            try #require(issued.status == 0, "\(issued.output)")
            try issued.output.write(to: setup.directory.appending(path: "op.pem"), atomically: true, encoding: .utf8)

            // A second instance on the same data, in required mode.
            let required = try await ServerProcess(
                arguments: setup.storage
                    + setup.certificates.serverArguments(
                        setup.certificates.server,
                        setup.certificates.serverKey,
                        in: setup.directory
                    )
                    + ["--tls-client-ca", setup.data.appending(path: "ca/ca-chain.pem").path]
                    + ["--client-certificates", "required"],
                scheme: "https"
            )
            defer { required.stop() }
            let strict = Setup(
                server: required,
                directory: setup.directory,
                data: setup.data,
                storage: setup.storage,
                certificates: setup.certificates
            )
            #expect(try await strict.curl("/health").status == 0)
            let identity = ["--cert", "op.pem", "--key", "op.key"]
            #expect(try await strict.curl("/health", identity).status == 200)
            let clients = "/v1/storage/clients/\(alice.clientID.uuidString.lowercased())"
            #expect(try await strict.curl(clients, identity + ["-H", "Authorization: Bearer \(token)"]).status == 200)
            var direct = alice
            direct.apiURL = try #require(URL(string: strict.url))
            await #expect(throws: ClientError.self) {
                _ = try await Client(configuration: direct, options: strict.options).write(type: "x", data: ["a": "b"])
            }

            // A CA key readable by others is refused by the ca commands and at start-up.
            let keyPath = setup.data.appending(path: "ca/ca-key.pem").path
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
            let loose = try await setup.serverCommand(issue + [alice.clientID.uuidString])
            #expect(loose.status != 0 && loose.output.contains("readable or writable by others"), "\(loose.output)")
            await #expect(throws: (any Error).self) {
                _ = try await ServerProcess(arguments: setup.storage)
            }
        }
    }

    @Test(
        "the SDK end to end: enroll generates the key in the keychain, records and files over mutual TLS, renew rotates the key and supersedes the old certificate, revoke ends it",
        arguments: TestEngine.available
    )
    func sdkFlow(engine: TestEngine) async throws {
        try await Self.withMutualTLS(engine: engine) { setup in
            let configuration = try await setup.register("device")
            let plain = try Client(configuration: configuration, options: setup.options)
            let keychain = try Keychain.encryptedFile(
                at: setup.directory.appending(path: "device.keychain"),
                passphrase: "device",
                parameters: .minimum
            )
            let mutual = try await plain.enroll(keychain: keychain, label: "device")
            let identity = try ClientIdentity.keychain(keychain, label: "device")
            #expect(identity.clientID == configuration.clientID.uuidString.lowercased())
            #expect(!identity.intermediates.isEmpty)
            #expect(mutual.transportOptions.clientIdentity == identity)

            let record = try await mutual.write(type: "mtls", data: ["secret": "over mutual TLS"])
            #expect(try await mutual.read(recordID: record.meta.recordID).data == ["secret": "over mutual TLS"])
            let original = setup.directory.appending(path: "plain.bin")
            try Data(repeating: 9, count: 1 << 20).write(to: original)
            let file = try await mutual.writeFile(type: "mtls-file", fileURL: original)
            let copy = setup.directory.appending(path: "copy.bin")
            try await mutual.readFile(recordID: file.meta.recordID, destination: copy)
            #expect(try Data(contentsOf: copy) == Data(contentsOf: original))

            // Renewal over mutual TLS with a new key; the old certificate is superseded at once.
            let renewed = try await mutual.renewCertificate(keychain: keychain, label: "device", rotatingKey: true)
            let next = try ClientIdentity.keychain(keychain, label: "device")
            #expect(next.certificate.publicKey != identity.certificate.publicKey)
            #expect(try await renewed.read(recordID: record.meta.recordID).data == ["secret": "over mutual TLS"])
            await #expect(throws: ClientError.self) { _ = try await mutual.read(recordID: record.meta.recordID) }

            // An operator revokes the new one: the next handshake fails.
            let serial = next.certificate.serialNumber.bytes.hexString
            let revoked = try await setup.serverCommand(["ca", "revoke", serial])
            #expect(revoked.status == 0, "\(revoked.output)")
            await #expect(throws: ClientError.self) { _ = try await renewed.read(recordID: record.meta.recordID) }
            // The server-only TLS client is unaffected (optional mode).
            #expect(try await plain.read(recordID: record.meta.recordID).data == ["secret": "over mutual TLS"])

            // The signed revocation list names both, the renewed-away one as superseded: served (DER) and from
            // `ca crl` (PEM), each verified by OpenSSL against the CA.
            let fetched = try await setup.curl("/v1/pki/crl", ["-o", "served.crl"])
            #expect(fetched.status == 200, "\(fetched)")
            let printed = try await setup.serverCommand(["ca", "crl", "--output", setup.directory.path + "/cli.crl"])
            #expect(printed.status == 0, "\(printed.output)")
            let chain = setup.data.appending(path: "ca/ca-chain.pem").path
            for (file, form) in [("served.crl", "DER"), ("cli.crl", "PEM")] {
                let read = try await ExternalProcess.run(
                    URL(fileURLWithPath: "/usr/bin/openssl"),
                    arguments: ["crl", "-inform", form, "-in", file, "-CAfile", chain, "-noout", "-text"],
                    directory: setup.directory
                )
                #expect(read.status == 0 && read.output.contains("verify OK"), "\(file): \(read.output)")
                for old in [identity, next] {
                    let bytes = old.certificate.serialNumber.bytes.drop { $0 == 0 }
                    let text = bytes.hexString.uppercased()
                    #expect(read.output.contains("Serial Number: \(text)"), "\(file) lacks \(text): \(read.output)")
                }
                #expect(read.output.components(separatedBy: "Superseded").count == 2, "\(read.output)")
                // This library's reader agrees: signed by the server's CA, naming both.
                let bytes = [UInt8](try Data(contentsOf: setup.directory.appending(path: file)))
                let issuers = try CertificateBundle.certificates(
                    from: Array(try Data(contentsOf: URL(fileURLWithPath: chain)))
                )
                let list = issuers.lazy.compactMap { issuer in
                    form == "DER"
                        ? try? CertificateRevocationList(derEncoded: bytes, issuer: issuer)
                        : try? CertificateRevocationList(
                            pemEncoded: String(decoding: bytes, as: UTF8.self),
                            issuer: issuer
                        )
                }.first
                #expect(list?.contains(identity.certificate.serialNumber) == true, "\(file)")
                #expect(list?.contains(next.certificate.serialNumber) == true, "\(file)")
                #expect(list?.entries.compactMap(\.reason) == [.superseded], "\(file)")
            }

            // The keychain file holds no private key in the clear.
            let der = try next.unsealedPrivateKey().pkcs8().withUnsafeBytes { Data($0) }
            let bytes = try Data(contentsOf: setup.directory.appending(path: "device.keychain"))
            #expect(bytes.range(of: der.prefix(48).suffix(24)) == nil)
        }
    }

    @Test(
        "pins are checked in the handshake, before a client certificate would be sent: an unpinned key, a host without pins, a pinned CA key"
    )
    func pinsBeforeIdentity() async throws {
        try await Self.withMutualTLS(engine: .sqlite) { setup in
            let configuration = try await setup.register("pinned")
            let keychain = Keychain.inMemory()
            let mutual = try await Client(configuration: configuration, options: setup.options)
                .enroll(keychain: keychain, label: "pinned")
            var options = mutual.transportOptions
            let stranger = try #require(PublicKeyPin(base64: "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI="))
            options.serverTrust = ServerTrust(roots: .certificates([setup.certificates.ca]), pins: [stranger])
            let refused = await #expect(throws: ClientError.self) {
                _ = try await Client(configuration: configuration, options: options).read(recordID: UUID())
            }
            #expect(refused?.code == .untrustedServer, "\(String(describing: refused))")
            #expect(refused?.message.contains("not pinned for localhost") == true, "\(String(describing: refused))")
            // Per-host pins: a host without an entry is refused, naming it.
            options.serverTrust = ServerTrust(
                roots: .certificates([setup.certificates.ca]),
                hostPins: ["other.example": [stranger]]
            )
            let unlisted = await #expect(throws: ClientError.self) {
                _ = try await Client(configuration: configuration, options: options).read(recordID: UUID())
            }
            #expect(unlisted?.message.contains("no pins are configured for localhost") == true)
            // Pinning the CA's key (not the leaf's) passes: any key of the verified chain may be pinned.
            options.serverTrust = ServerTrust(
                roots: .certificates([setup.certificates.ca]),
                hostPins: ["localhost": [try PublicKeyPin(certificate: setup.certificates.ca)]]
            )
            let record = try await Client(configuration: configuration, options: options)
                .write(type: "pinned", data: ["a": "b"])
            #expect(record.meta.type == "pinned")

            // The same trust sealed in a keychain item and loaded back works alike.
            try options.serverTrust.save(to: keychain, label: "server")
            let loaded = try ServerTrust.keychain(keychain, label: "server")
            #expect(loaded == options.serverTrust)
            options.serverTrust = loaded
            let client = try Client(configuration: configuration, options: options)
            #expect(try await client.read(recordID: record.meta.recordID).meta.type == "pinned")
            #expect(throws: ClientError.self) { _ = try ServerTrust.keychain(keychain, label: "missing") }

            // What the connection negotiated: TLS 1.2 or 1.3, ALPN http/1.1, the server's chain (leaf first).
            let security = try await client.connectionSecurity()
            #expect(["TLSv1.2", "TLSv1.3"].contains(security.tlsVersion), "\(security)")
            #expect(security.host == "localhost" && security.port == setup.server.port)
            #expect(security.serverChain.first == setup.certificates.server)
            #expect(security.presentsClientCertificate)
            options.serverTrust = ServerTrust(roots: .certificates([setup.certificates.ca]), pins: [stranger])
            let probed = await #expect(throws: ClientError.self) {
                _ = try await Client(configuration: configuration, options: options).connectionSecurity()
            }
            #expect(probed?.code == .untrustedServer)
        }
    }

    @Test("the CLI: pki enroll stores the identity in the keychain; --client-identity reads over mutual TLS; pki renew")
    func cliFlow() async throws {
        try await Self.withMutualTLS(engine: .sqlite, mode: "required") { setup in
            let cli = ServerProcess.executable.deletingLastPathComponent().appending(path: "strongroom")
            try Data("kc pass\n".utf8).write(to: setup.directory.appending(path: "kc.pass"))
            let common = [
                "--profile-directory", setup.directory.appending(path: "profiles").path, "--ca-file", "server-ca.pem",
                "--keychain-file", "device.keychain", "--passphrase-file", "kc.pass",
            ]
            func run(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
                try await ExternalProcess.run(cli, arguments: arguments, directory: setup.directory)
            }
            #expect(try await run(["keychain", "create", "--kdf", "minimum"] + Array(common.suffix(4))).status == 0)
            // Required mode: registering without a certificate is refused at the handshake: exit 8 when the
            // server's alert arrives, 10 when the connection's close overtook it (TLS 1.3); both say why.
            let refused = try await run(
                ["register", "--token", ClientTestServer.registrationToken, "--url", setup.url] + common
            )
            #expect([8, 10].contains(refused.status), "\(refused.output)")
            #expect(refused.output.contains("client certificate"), "\(refused.output)")

            // Register through an optional-mode instance on the same data, then enroll there.
            let optional = try await ServerProcess(
                arguments: setup.storage
                    + setup.certificates.serverArguments(
                        setup.certificates.server,
                        setup.certificates.serverKey,
                        in: setup.directory
                    )
                    + ["--tls-client-ca", setup.data.appending(path: "ca/ca-chain.pem").path],
                scheme: "https"
            )
            defer { optional.stop() }
            let optionalURL = "https://localhost:\(optional.port)"
            let registered = try await run(
                ["register", "--token", ClientTestServer.registrationToken, "--url", optionalURL] + common
            )
            try #require(registered.status == 0, "\(registered.output)")
            let enrolled = try await run(["pki", "enroll", "--label", "device"] + common)
            #expect(enrolled.status == 0 && enrolled.output.hasPrefix("enrolled device"), "\(enrolled.output)")
            #expect(enrolled.output.contains("urn:strongroom:client:"), "\(enrolled.output)")

            // The profile's server is the optional instance; the identity works against either.
            let identity = ["--client-identity", "device"]
            let written = try await run(["write", "--type", "note", "title=over mTLS"] + common + identity)
            try #require(written.status == 0, "\(written.output)")
            let id = written.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let read = try await run(["read", id] + common + identity)
            #expect(read.status == 0 && read.output.contains("over mTLS"), "\(read.output)")
            let renewed = try await run(["pki", "renew", "--label", "device", "--rotate-key"] + common + identity)
            #expect(renewed.status == 0, "\(renewed.output)")
            #expect(try await run(["read", id] + common + identity).status == 0)

            // Roots and a pin for localhost sealed in the keychain replace --ca-file; probe shows the handshake.
            let keychainFlags = Array(common.suffix(4))
            let caPin = try PublicKeyPin(certificate: setup.certificates.ca).description
            let saved = try await run(
                ["pki", "save-trust", "server", "--ca-file", "server-ca.pem", "--host-pin", "localhost=\(caPin)"]
                    + keychainFlags
            )
            #expect(saved.status == 0, "\(saved.output)")
            let trusted = Array(common.prefix(2)) + ["--server-trust", "server"] + keychainFlags + identity
            let viaTrust = try await run(["read", id] + trusted)
            #expect(viaTrust.status == 0 && viaTrust.output.contains("over mTLS"), "\(viaTrust.output)")
            let probe = try await run(["pki", "probe"] + trusted)
            #expect(probe.status == 0 && probe.output.contains("protocol:    TLSv1."), "\(probe.output)")
            #expect(probe.output.contains("presented when asked"), "\(probe.output)")
            let both = try await run(["read", id] + common + ["--server-trust", "server"] + identity)
            #expect(both.status != 0 && both.output.contains("--server-trust already holds"), "\(both.output)")
        }
    }
}
