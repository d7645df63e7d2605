// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Foundation
package import HTTPTypes
package import Hummingbird
package import HummingbirdTesting
package import Logging
package import StrongroomClient
package import StrongroomCore
package import StrongroomCrypto
package import StrongroomServer
import StrongroomServerPostgres
package import StrongroomServerS3
package import StrongroomTesting
package import StrongroomWire
import Synchronization
import Testing

/// A real Strongroom server on a free loopback port: embedded SQLite in a temporary directory, or PostgreSQL in a
/// fresh database of the test cluster (dropped afterwards).
package enum TestServer {
    package static let registrationToken = "test-registration-token"

    /// The connection limits of a test server unless a test sets its own: a deployment's, with five minutes for a
    /// request head or body at any rate, so a test process slowed by a busy machine is never cut off, and fifteen
    /// minutes idle. HummingbirdTesting's client holds one connection for a whole test: a test that spends over a
    /// minute elsewhere (restarting the object store on a busy machine) found it closed under its next request
    /// (CI saw `I/O on closed channel` in `ObjectStoreRestartTests`).
    package static var unhurried: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(900)
        limits.headerTimeout = .seconds(300)
        limits.bodyTimeout = .seconds(300)
        limits.bodyMinimumRate = 1
        return limits
    }

    package static func run<R: Sendable>(
        engine: TestEngine = .sqlite,
        tokenLifetime: Duration = .seconds(3600),
        limits: ServerLimits = .init(),
        connections: ConnectionLimits = TestServer.unhurried,
        blobStorage: BlobStorage? = nil,
        objectStore: S3Configuration? = nil,
        adminToken: String? = nil,
        clock: any WallClock = SystemWallClock(),
        logger: Logger? = nil,
        keyLogMalice: KeyLogMalice? = nil,
        keyLogWitnesses: [KeyLogWitnessEndpoint] = [],
        tokenKey: SecureBytes? = nil,
        clientCacheLifetime: Duration = .seconds(10),
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
            configuration.keyLogTampering = keyLogMalice
            configuration.clientCacheLifetime = clientCacheLifetime
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
package final class AdvancingWallClock: WallClock {
    private let offset = Mutex<TimeInterval>(0)

    package init() {}

    package var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock `interval` forward.
    package func advance(by interval: TimeInterval) { offset.withLock { $0 += interval } }
}

/// A registered client of the test server, with its keys.
package struct RegisteredClient: Sendable {
    package var clientID: String
    package var apiKeyID: String
    package var apiSecret: String
    package var keys: ClientKeys
    package var token: String
}

/// Raw HTTP against the test server.
package struct API: Sendable {
    package let client: any TestClientProtocol
    package let dataDirectory: URL
    package let engine: TestEngine
    /// The PostgreSQL database of this server, when the engine is PostgreSQL.
    package var databaseURL: String?

    package var port: Int { client.port ?? 0 }
    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package func request(
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

    package func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        headers: HTTPFields,
        body: String? = nil
    ) async throws -> TestResponse {
        try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    package func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String,
        json: some Encodable
    ) async throws -> TestResponse {
        let body = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        return try await request(method, path, authorization: "Bearer \(token)", body: body)
    }

    /// Registers a client named `name` through the SDK, its configuration adjusted by `configure` first.
    package func sdkClient(
        _ name: String,
        configure: (inout Client.Configuration) -> Void = { _ in }
    ) async throws -> Client {
        guard let url = URL(string: baseURL) else { throw TestFailure("no server URL") }
        var configuration = try await Client.register(
            token: TestServer.registrationToken,
            clientName: name,
            apiURL: url
        )
        configure(&configuration)
        return Client(configuration: configuration)
    }

    /// The JSON of a registration of `keys` under `name` with the test server's token.
    package static func registrationBody(name: String, keys: ClientKeys) throws -> String {
        let registration = RegistrationRequest(
            token: TestServer.registrationToken,
            client: .init(
                name: name,
                publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                signingKey: .init(ed25519: keys.signingKey.publicKey.base64URLEncoded)
            )
        )
        return String(decoding: try JSONEncoder().encode(registration), as: UTF8.self)
    }

    /// Registers a client named `name` over raw HTTP, with its keys and a token.
    package func register(_ name: String = "client") async throws -> RegisteredClient {
        let keys = ClientKeys.generate()
        let body = try Self.registrationBody(name: name, keys: keys)
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
        return RegisteredClient(
            clientID: registered.clientID,
            apiKeyID: registered.apiKeyID,
            apiSecret: registered.apiSecret,
            keys: keys,
            token: token.accessToken
        )
    }

    /// Writes a record whose fields are encrypted client-side under `accessKey`.
    package func writeRecord(
        as client: RegisteredClient,
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

    package func share(
        _ type: String,
        from writer: RegisteredClient,
        to reader: RegisteredClient,
        accessKey: AccessKey
    ) async throws {
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

package struct TestFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension Data {
    package init(buffer: ByteBuffer) { self.init(buffer.readableBytesView) }
}
