// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomServerPostgres
import StrongroomServerS3
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

/// A real Strongroom server on a free loopback port: embedded SQLite in a temporary directory, or PostgreSQL in a
/// fresh database of the test cluster (dropped afterwards).
enum TestServer {
    static let registrationToken = "test-registration-token"

    static func run<R: Sendable>(
        engine: TestEngine = .sqlite,
        tokenLifetime: Duration = .seconds(3600),
        limits: ServerLimits = .init(),
        connections: ConnectionLimits = .init(),
        blobStorage: BlobStorage? = nil,
        objectStore: S3Configuration? = nil,
        adminToken: String? = nil,
        clock: any WallClock = SystemWallClock(),
        logger: Logger? = nil,
        keyLogMalice: KeyLogMalice? = nil,
        keyLogWitnesses: [KeyLogWitnessEndpoint] = [],
        tokenKey: SecureBytes? = nil,
        _ body: @escaping @Sendable (API) async throws -> R
    ) async throws -> R {
        try await withTemporaryDirectory { directory in
            var quiet = Logger(label: "strongroom-test")
            quiet.logLevel = .warning
            let logger = logger ?? quiet
            var configuration = ServerConfiguration(
                dataDirectory: directory.path,
                port: 0,
                registrationToken: registrationToken,
                tokenLifetime: tokenLifetime,
                limits: limits,
                connections: connections,
                // As every instance of a deployment on PostgreSQL gets it (the data directory's key file is refused
                // there unless the server is declared the only instance).
                tokenKey: tokenKey ?? (engine == .postgres ? SecureRandom.bytes(count: 32) : nil),
                blobStorage: blobStorage
            )
            configuration.clock = clock
            configuration.adminToken = adminToken
            configuration.keyLogMalice = keyLogMalice
            configuration.keyLogWitnesses = keyLogWitnesses
            configuration.objectStore = objectStore.map(ObjectStore.s3)
            switch engine {
            case .sqlite:
                let app = try await buildEmbeddedApplication(configuration: configuration, logger: logger)
                return try await app.test(.live) { client in
                    try await body(API(client: client, dataDirectory: directory, engine: engine))
                }
            case .postgres:
                return try await TestDatabase.withPostgres { url in
                    let app = try await buildPostgresApplication(
                        configuration: configuration,
                        databaseURL: url,
                        logger: logger
                    )
                    return try await app.test(.live) { client in
                        try await body(API(client: client, dataDirectory: directory, engine: engine, databaseURL: url))
                    }
                }
            }
        }
    }
}

/// A wall clock a test moves forward: the server under test sees time pass without the test waiting for it.
final class AdvancingWallClock: WallClock {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock `interval` forward.
    func advance(by interval: TimeInterval) { offset.withLock { $0 += interval } }
}

/// A registered client of the test server, with its keys.
struct TestClient: Sendable {
    var clientID: String
    var apiKeyID: String
    var apiSecret: String
    var keys: ClientKeys
    var token: String
}

/// Raw HTTP against the test server.
struct API: Sendable {
    let client: any TestClientProtocol
    let dataDirectory: URL
    let engine: TestEngine
    /// The PostgreSQL database of this server, when the engine is PostgreSQL.
    var databaseURL: String?

    var port: Int { client.port ?? 0 }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        authorization: String? = nil,
        body: String? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        return try await client.execute(
            uri: path,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
    }

    func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        headers: HTTPFields,
        body: String? = nil
    ) async throws -> TestResponse {
        try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String,
        json: some Encodable
    ) async throws -> TestResponse {
        let body = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        return try await request(method, path, authorization: "Bearer \(token)", body: body)
    }

    func register(_ name: String = "client") async throws -> TestClient {
        let keys = ClientKeys.generate()
        let registration = RegistrationRequest(
            token: TestServer.registrationToken,
            client: .init(
                name: name,
                publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                signingKey: .init(ed25519: keys.signingKey.publicKey.base64URLEncoded)
            )
        )
        let body = String(decoding: try JSONEncoder().encode(registration), as: UTF8.self)
        let response = try await request(.post, "/v1/account/e3db/clients/register", body: body)
        guard response.status == .created else { throw TestFailure("registration answered \(response.status)") }
        let registered = try JSONDecoder().decode(RegistrationResponse.self, from: Data(buffer: response.body))
        let basic = Data("\(registered.apiKeyID):\(registered.apiSecret)".utf8).base64EncodedString()
        let tokenResponse = try await request(
            .post,
            "/v1/auth/token",
            authorization: "Basic \(basic)",
            body: "grant_type=client_credentials"
        )
        let token = try JSONDecoder().decode(TokenResponse.self, from: Data(buffer: tokenResponse.body))
        return TestClient(
            clientID: registered.clientID,
            apiKeyID: registered.apiKeyID,
            apiSecret: registered.apiSecret,
            keys: keys,
            token: token.accessToken
        )
    }

    /// Writes a record whose fields are encrypted client-side under `accessKey`.
    func writeRecord(
        as client: TestClient,
        type: String,
        fields: [String: String],
        accessKey: AccessKey
    ) async throws -> RecordResponse {
        let request = RecordWriteRequest(
            meta: .init(writerID: client.clientID, userID: client.clientID, type: type, plain: ["k": "v"]),
            data: FieldCipher.encrypt(fields: fields, with: accessKey)
        )
        let response = try await self.request(.post, "/v1/storage/records", token: client.token, json: request)
        guard response.status == .created else { throw TestFailure("write answered \(response.status)") }
        return try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: response.body))
    }

    func share(_ type: String, from writer: TestClient, to reader: TestClient, accessKey: AccessKey) async throws {
        let eak = accessKey.sealed(to: reader.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
        let path = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/\(type)"
        let put = try await request(.put, path, token: writer.token, json: AccessKeyPutRequest(eak: eak.wireFormat))
        guard put.status == .created else { throw TestFailure("EAK put answered \(put.status)") }
        let policy = PolicyRequest(allow: [.init(read: [:])])
        let policyPath = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/\(type)"
        let allowed = try await request(.put, policyPath, token: writer.token, json: policy)
        guard allowed.status == .created else { throw TestFailure("policy answered \(allowed.status)") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Data {
    init(buffer: ByteBuffer) { self.init(buffer.readableBytesView) }
}
