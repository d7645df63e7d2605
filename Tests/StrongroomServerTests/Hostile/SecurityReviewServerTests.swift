// Strongroom — SPDX-License-Identifier: Apache-2.0
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
import Testing

/// The server side of the attacker's review (issue 44): every route's guard, notes' expiry, size and byte
/// quotas, the admin history's pages, and secret files refused like `token.key`.
@Suite struct SecurityReviewServerTests {
    /// Every route the application mounts, with its guard (from the same table that mounts them).
    static func inventory() async throws -> [RouteInventoryEntry] {
        var logger = Logger(label: "route-inventory")
        logger.logLevel = .warning
        return try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore { store in
                let found = Found()
                _ = try await buildApplication(
                    configuration: ServerConfiguration(dataDirectory: directory.path, port: 0),
                    store: store,
                    tokenKey: SecureRandom.bytes(count: 32),
                    logger: logger,
                    routeInventory: { found.routes = $0 }
                )
                return found.routes
            }
        }
    }

    @Test("every route runs the checks of its kind; the open routes are exactly the listed ones")
    func routeGuards() async throws {
        let routes = try await Self.inventory()
        #expect(routes.count > 30, "\(routes)")
        #expect(Set(routes.map { "\($0.method) \($0.path)" }).count == routes.count, "no route is mounted twice")
        // Open by design: health and readiness, this API's description, registration and the token exchange (their own credentials), the
        // backup acknowledgement (answers 201 whatever it is sent), presigned blob transfers (their own signed URL),
        // the CA chain and its revocation list, the key log's checkpoint and consistency proofs (sizes and hashes).
        let open: Set<String> = [
            "GET /health", "GET /ready", "GET /openapi.yaml", "POST /v1/account/e3db/clients/register",
            "POST /v1/auth/token",
            "POST /v1/account/backup/{token}/{client}", "PUT /v1/storage/blobs/{id}", "GET /v1/storage/blobs/{id}",
            "GET /v1/pki/ca", "GET /v1/pki/crl", "GET /v2/keylog/checkpoint", "GET /v2/keylog/proof/consistency",
        ]
        for route in routes {
            let expected: RouteGuard
            switch route.path {
            case _ where open.contains("\(route.method) \(route.path)"): expected = .open
            case "/v1/pki/renew": expected = .certificate
            case let path where path.hasPrefix("/v1/admin/") || path == "/metrics": expected = .admin
            case let path where path.hasPrefix("/v1/integrity/"): expected = .integrityCheckIn
            case let path where path.hasPrefix("/v2/storage/notes"): expected = .note
            case let path where path.hasPrefix("/v1/storage/") || path.hasPrefix("/v2/"): expected = .client
            case "/v1/pki/enroll": expected = .client
            default:
                Issue.record("a route nobody classified: \(route)")
                continue
            }
            #expect(route.guarding == expected, "\(route)")
        }
        let opened = Set(routes.filter { $0.guarding == .open }.map { "\($0.method) \($0.path)" })
        #expect(opened == open, "a new open route must be listed here: \(opened.subtracting(open))")
    }

    @Test(
        "notes: a year-9999 expiry is brought forward, an oversized note is 413, and bytes per key are a quota",
        arguments: TestEngine.available
    )
    func noteLimits(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.maximumNoteBytes = 8_192
        limits.noteBytesPerKey = 9_000
        let lifetime = limits.defaultNoteLifetime
        try await TestServer.run(engine: engine, limits: limits) { api in
            let writer = SigningPrivateKey()
            func write(data: String, expiration: String? = nil) async throws -> TestResponse {
                let encryption = EncryptionPrivateKey().publicKey.base64URLEncoded
                let expiry = expiration.map { #", "expires": true, "expiration": "\#($0)""# } ?? ""
                let body = """
                    {"data": {"k": "\(data)"}, "encrypted_access_key": "a.b",
                    "recipient_signing_key": "\(SigningPrivateKey().publicKey.base64URLEncoded)",
                    "writer_signing_key": "\(writer.publicKey.base64URLEncoded)",
                    "writer_encryption_key": "\(encryption)"\(expiry)}
                    """
                return try await api.request(
                    .post,
                    "/v2/storage/notes",
                    authorization: HostileRequests.anonymousNoteHeader(writer: writer),
                    body: body
                )
            }
            let forever = try await write(data: "x", expiration: "9999-12-31T23:59:59Z")
            #expect(forever.status == .created)
            let stored = try JSONDecoder().decode([String: JSONValue].self, from: Data(buffer: forever.body))
            let expiration = try #require(stored["expiration"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            let latest = Timestamp(microseconds: now + lifetime.microseconds)
            #expect(expiration <= latest, "\(stored)")

            let large = try await write(data: String(repeating: "a", count: 10_000))
            #expect(large.status == .contentTooLarge)
            #expect(String(buffer: large.body).contains("too_large"))

            // 5 KB each: with the first note they fit under 9,000 bytes for this key, the third does not; another key still writes.
            let five = String(repeating: "b", count: 5_000)
            #expect(try await write(data: five).status == .created)
            let over = try await write(data: five)
            #expect(over.status == .tooManyRequests, "\(String(buffer: over.body))")
            let other = SigningPrivateKey()
            let otherNote = try await api.request(
                .post,
                "/v2/storage/notes",
                authorization: HostileRequests.anonymousNoteHeader(writer: other),
                body: HostileRequests.noteBody(writer: other, maxViews: "-1")
            )
            #expect(otherNote.status == .created)
        }
    }

    @Test("the admin integrity history is paged: 20 by default, at most 100; a larger limit is a 400")
    func adminHistoryPages() async throws {
        let token = "admin-" + String(repeating: "t", count: 40)
        try await TestServer.run(adminToken: token) { api in
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            var statuses: [HTTPResponse.Status] = []
            for query in ["?limit=10000", "?limit=0", "?before=-3", "?limit=100"] {
                statuses.append(try await api.request(.get, "/v1/admin/integrity\(query)", headers: headers).status)
            }
            statuses.append(try await api.request(.get, "/v1/admin/integrity", headers: HTTPFields()).status)
            #expect(statuses == [.badRequest, .badRequest, .badRequest, .ok, .unauthorized])
        }
    }

    @Test(
        "secret files readable by group or others stop start-up, as token.key does",
        arguments: ["--admin-token-file", "--token-key-file"]
    )
    func secretFilePermissions(option: String) async throws {
        try await withTemporaryDirectory { directory in
            let secret = directory.appending(path: "secret")
            let text =
                option == "--token-key-file"
                ? Base64URL.encode(SecureRandom.data(count: 32)) : String(repeating: "s", count: 40)
            try Data((text + "\n").utf8).write(to: secret)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret.path)
            let refused = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: [
                    "serve", "--port", "0", "--data-directory", directory.appending(path: "data").path, option,
                    secret.path,
                ]
            )
            #expect(refused.status != 0 && refused.output.contains("readable by group or others"), "\(refused.output)")
        }
    }

    @Test("a malformed chunk size in a request body is a 400, not a 500")
    func malformedChunkSize() async throws {
        try await TestServer.run { api in
            let client = try await api.register()
            let answer = try await RawConnection(port: api.port).exchange(
                "POST /v1/storage/records HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(client.token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + "5\r\n{\"a\":\r\nzz\r\n1}\r\n0\r\n\r\n"
            )
            #expect(!answer.hasPrefix("HTTP/1.1 500"), "\(answer)")
            #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        }
    }

}

/// What the route table handed over.
private final class Found: @unchecked Sendable {
    // @unchecked: written once, by the call that builds the application, before it is read.
    var routes: [RouteInventoryEntry] = []
}
