// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

/// Registration tokens cannot be guessed quickly, credential answers are not cached, 401s say how to
/// authenticate, failures are logged without secrets, and public keys must be real keys.
@Suite struct CredentialHardeningTests {
    static func registrationBody(
        token: String,
        publicKey: PublicKeyObject,
        signingKey: SigningKeyObject? = nil
    ) throws
        -> String
    {
        let request = RegistrationRequest(
            token: token,
            client: .init(name: "c", publicKey: publicKey, signingKey: signingKey)
        )
        return String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
    }

    @Test("failed registrations are rate-limited per source with 429", arguments: TestEngine.available)
    func registrationRateLimit(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.authenticationFailuresPerMinute = 3
        try await TestServer.run(engine: engine, limits: limits) { api in
            let key = EncryptionPrivateKey().publicKey.base64URLEncoded
            let guess = try Self.registrationBody(token: "guess", publicKey: .init(curve25519: key))
            for _ in 0..<3 {
                let response = try await api.request(.post, "/v1/account/e3db/clients/register", body: guess)
                #expect(response.status == .unauthorized)
            }
            let limited = try await api.request(.post, "/v1/account/e3db/clients/register", body: guess)
            #expect(limited.status == .tooManyRequests)
            // Even the right token waits out the window from that source.
            let right = try Self.registrationBody(
                token: TestServer.registrationToken,
                publicKey: .init(curve25519: key)
            )
            #expect(
                try await api.request(.post, "/v1/account/e3db/clients/register", body: right).status
                    == .tooManyRequests
            )
            // The other credential endpoints share the limit.
            #expect(
                try await api.request(.post, "/v1/auth/token", authorization: "Basic YTpi").status == .tooManyRequests
            )
        }
    }

    @Test(
        "the backup endpoint answers alike for the right token, a wrong one and an oversize one",
        arguments: TestEngine.available
    )
    func backupIsNoOracle(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            var answers: [String] = []
            for token in [TestServer.registrationToken, "wrong-token", String(repeating: "x", count: 2000)] {
                let response = try await api.request(.post, "/v1/account/backup/\(token)/\(client.clientID)")
                #expect(response.status == .created)
                answers.append(String(buffer: response.body))
            }
            #expect(Set(answers).count == 1)
        }
    }

    @Test("token and registration answers are not cached; 401s carry WWW-Authenticate", arguments: TestEngine.available)
    func responseHeaders(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let keys = ClientKeys.generate()
            let body = try Self.registrationBody(
                token: TestServer.registrationToken,
                publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded)
            )
            let registered = try await api.request(.post, "/v1/account/e3db/clients/register", body: body)
            #expect(registered.headers[.cacheControl] == "no-store")
            let info = try JSONDecoder().decode(RegistrationResponse.self, from: Data(buffer: registered.body))
            let basic = Data("\(info.apiKeyID):\(info.apiSecret)".utf8).base64EncodedString()
            let token = try await api.request(.post, "/v1/auth/token", authorization: "Basic \(basic)", body: "")
            #expect(token.status == .ok)
            #expect(token.headers[.cacheControl] == "no-store")
            let refused = try await api.request(.get, "/v1/storage/policy/outgoing")
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.wwwAuthenticate]?.contains("Bearer") == true)
        }
    }

    @Test("malformed and degenerate public keys are refused at registration", arguments: TestEngine.available)
    func publicKeys(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let zero = Base64URL.encode(Data(repeating: 0, count: 32))
            let good = EncryptionPrivateKey().publicKey.base64URLEncoded
            let p384 = Base64URL.encode(Data(P384PEM.publicKey.utf8))
            let refused: [(PublicKeyObject, SigningKeyObject?)] = [
                (.init(p384: "not-a-key"), nil),
                (.init(curve25519: zero), nil),
                (.init(curve25519: "short"), nil),
                (.init(curve25519: good), .init(ed25519: zero)),
                (.init(), nil),
            ]
            for (publicKey, signingKey) in refused {
                let body = try Self.registrationBody(
                    token: TestServer.registrationToken,
                    publicKey: publicKey,
                    signingKey: signingKey
                )
                let response = try await api.request(.post, "/v1/account/e3db/clients/register", body: body)
                #expect(response.status == .badRequest, "\(publicKey) \(String(describing: signingKey))")
            }
            let nist = try Self.registrationBody(token: TestServer.registrationToken, publicKey: .init(p384: p384))
            #expect(try await api.request(.post, "/v1/account/e3db/clients/register", body: nist).status == .created)
        }
    }

    @Test("at trace level, no bound value (registration token, secret hash, EAK) reaches the log; failures do at info")
    func logsCarryNoSecrets() async throws {
        let records = LogRecords()
        var logger = Logger(label: "strongroom-test") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .trace
        try await TestServer.run(engine: .sqlite, logger: logger) { api in
            let client = try await api.register()
            _ = try await api.writeRecord(as: client, type: "logged", fields: ["f": "v"], accessKey: AccessKey())
            _ = try await api.request(.get, "/v1/storage/policy/outgoing", authorization: "Bearer sr1.AAAA.BBBB")
            let text = records.all.joined(separator: "\n")
            #expect(!text.contains(TestServer.registrationToken))
            #expect(!text.contains(client.apiSecret))
            #expect(!text.contains(client.apiKeyID))
            #expect(!text.contains("logged"), "plain metadata and types stay out of the log")
            #expect(text.contains("bearer authentication failed"))
        }
    }

    @Test(
        "presigned URLs ignore the Host header, live 60 s, and a revoked reader's URL stops working",
        arguments: TestEngine.available
    )
    func presignedURLs(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let content = Data("ciphertext".utf8)
            let checksum = Data(Insecure.MD5.hash(data: content)).base64EncodedString()
            let create = FileWriteRequest(
                meta: .init(
                    writerID: writer.clientID,
                    userID: writer.clientID,
                    type: "doc",
                    plain: nil,
                    fileMeta: FileMeta(checksum: checksum, compression: "raw", size: Int64(content.count))
                )
            )
            // A raw request, so that the Host header can name another host.
            let json = String(decoding: try JSONEncoder().encode(create), as: UTF8.self)
            let answer = try await RawConnection(port: api.port).exchange(
                "POST /v1/storage/files HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer \(writer.token)\r\n"
                    + "Content-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)"
            )
            let responseBody = try #require(answer.range(of: "\r\n\r\n").map { answer[$0.upperBound...] })
            let pending = try JSONDecoder().decode(PendingFileResponse.self, from: Data(responseBody.utf8))
            #expect(pending.fileURL.hasPrefix("http://127.0.0.1:\(api.port)/"), "\(pending.fileURL)")
            #expect(!pending.fileURL.contains("evil"))
            let expires = try #require(
                URLComponents(string: pending.fileURL)?.queryItems?.first { $0.name == "expires" }?.value
            )
            #expect((try #require(Int64(expires))) - Int64(Date().timeIntervalSince1970) <= 60)
            let upload = String(pending.fileURL.dropFirst("http://127.0.0.1:\(api.port)".count))
            #expect(try await api.request(.put, upload, body: String(decoding: content, as: UTF8.self)).status == .ok)
            let headers: HTTPFields = [.authorization: "Bearer \(writer.token)"]
            #expect(
                try await api.request(.patch, "/v1/storage/files/\(pending.id)", headers: headers).status == .created
            )

            try await api.share("doc", from: writer, to: reader, accessKey: AccessKey())
            let file = try await api.request(
                .get,
                "/v1/storage/files/\(pending.id)",
                authorization: "Bearer \(reader.token)"
            )
            let url = try #require(
                try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: file.body)).meta.fileMeta?.fileURL
            )
            let download = String(url.dropFirst("http://127.0.0.1:\(api.port)".count))
            #expect(try await api.request(.get, download).status == .ok)
            let revoke = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/doc"
            #expect(
                try await api.request(.put, revoke, token: writer.token, json: PolicyRequest(deny: [.init(read: [:])]))
                    .status == .created
            )
            #expect(try await api.request(.get, download).status == .forbidden, "the URL fetched before the revoke")
        }
    }

    @Test("a non-loopback listener without a public URL, or a public URL that is not one, is refused at start-up")
    func publicURLRequired() async throws {
        try await withTemporaryDirectory { directory in
            let configuration = ServerConfiguration(dataDirectory: directory.path, host: "0.0.0.0", port: 0)
            await #expect(throws: (any Error).self) {
                _ = try await buildEmbeddedApplication(configuration: configuration, logger: Logger(label: "t"))
            }
            // Every presigned URL is built on it: a base without a scheme or host, or with credentials, a query or a
            // fragment, would hand clients broken or misleading URLs.
            for publicURL in [
                "notaurl", "files.example.com", "ftp://files.example.com", "https://", "https://u:secret@files.example",
                "https://files.example/?x=1", "https://files.example/#f",
            ] {
                let configuration = ServerConfiguration(
                    dataDirectory: directory.appending(path: "bad").path,
                    host: "127.0.0.1",
                    port: 0,
                    publicURL: publicURL
                )
                let error = await #expect(throws: ServerError.self, "\(publicURL)") {
                    _ = try await buildEmbeddedApplication(configuration: configuration, logger: Logger(label: "t"))
                }
                #expect(error?.code == .configuration && error?.message.contains("secret") == false)
            }
        }
    }
}

/// Log lines, collected.
final class LogRecords: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A log handler that keeps every message with its metadata.
struct CapturingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
    }
}

/// A P-384 public key in PEM, as the NIST-mode SDKs register it.
enum P384PEM {
    static let publicKey = P384.Signing.PrivateKey().publicKey.pemRepresentation
}
