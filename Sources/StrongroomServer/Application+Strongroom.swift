// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
public import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Builds the Strongroom server over `store`: routes, authentication, and the start-up work (account backup
/// client, preset registration token).
///
/// - Parameters:
///   - configuration: address, limits and token lifetime.
///   - store: where everything is kept.
///   - tokenKey: the 32-byte HMAC key for bearer tokens (every instance sharing `store` must use the same one).
///   - logger: where the server logs (the SQL layer never below `info`).
public func buildApplication(
    configuration: ServerConfiguration,
    store: any ServerStore,
    tokenKey: SecureBytes,
    logger: Logger
) async throws -> Application<RouterResponder<StrongroomRequestContext>> {
    try await prepare(store: store, configuration: configuration, logger: logger)
    let limits = configuration.limits
    let tokens = TokenIssuer(key: tokenKey)
    let accessKeys = AccessKeyRoutes(store: store, limits: limits)
    let account = AccountRoutes(
        store: store,
        tokens: tokens,
        tokenLifetime: configuration.tokenLifetime,
        limits: limits,
        failures: FailureRateLimiter(failuresPerMinute: limits.authenticationFailuresPerMinute)
    )
    let clock = MonotonicClock()
    let blobs = try FileBlobStore(directory: configuration.dataDirectory + "/blobs")
    let records = RecordRoutes(store: store, clock: clock, accessKeys: accessKeys, blobs: blobs, limits: limits)
    let policies = PolicyRoutes(store: store, limits: limits)
    let scheme = configuration.tls == nil ? "http" : "https"
    let baseURL = try PublicBaseURL(publicURL: configuration.publicURL, scheme: scheme, host: configuration.host)
    let files = FileRoutes(
        store: store,
        blobs: blobs,
        signer: try BlobURLSigner(tokenKey: tokenKey, lifetime: limits.presignedURLLifetime.wholeSeconds),
        clock: clock,
        records: records,
        limits: limits,
        baseURL: baseURL
    )

    let router = Router(context: StrongroomRequestContext.self)
    router.add(middleware: ErrorMappingMiddleware())
    router.get("/health") { _, _ in try json(["status": "ok"]) }
    router.post("/v1/account/e3db/clients/register", use: account.register)
    router.post("/v1/auth/token", use: account.token)
    router.post("/v1/account/backup/:token/:client", use: account.backup)
    router.put("/v1/storage/blobs/:id", use: files.upload)
    router.get("/v1/storage/blobs/:id", use: files.download)

    let signatures = TSV1Verifier(store: store, window: configuration.signatureWindow)
    let authentication = AuthenticationMiddleware(tokens: tokens, store: store, signatures: signatures)
    let searchV2 = SearchV2Routes(store: store, records: records, limits: limits)
    router.group("/v2").add(middleware: authentication).post("search", use: searchV2.search)
    let notes = NoteRoutes(store: store, clock: clock, limits: limits)
    let noteGroup = router.group("/v2/storage/notes").add(
        middleware: NoteAuthenticationMiddleware(signatures: signatures)
    )
    noteGroup.post(use: notes.write)
    noteGroup.get(use: notes.read)
    let storage = router.group("/v1/storage").add(middleware: authentication)
    storage.get("clients/:id", use: account.clientInfo)
    storage.get("access_keys/:writer/:user/:reader/:type", use: accessKeys.get)
    storage.put("access_keys/:writer/:user/:reader/:type", use: accessKeys.put)
    storage.delete("access_keys/:writer/:user/:reader/:type", use: accessKeys.delete)
    storage.post("records", use: records.write)
    storage.get("records/:id", use: records.read)
    storage.delete("records/:id", use: records.deleteUnconditionally)
    storage.put("records/safe/:id/:version", use: records.update)
    storage.delete("records/safe/:id/:version", use: records.delete)
    storage.post("search", use: records.search)
    storage.post("files", use: files.create)
    storage.patch("files/:id", use: files.commit)
    storage.get("files/:id", use: files.get)
    storage.get("policy/outgoing", use: policies.outgoing)
    storage.get("policy/incoming", use: policies.incoming)
    storage.get("policy/proxies", use: policies.proxies)
    storage.get("policy/granted", use: policies.granted)
    storage.put("policy/:user/:writer/:reader/:type", use: policies.put)
    storage.delete("policy/:user/:writer/:reader", use: policies.delete)

    let connections = configuration.connections
    let registry = ConnectionRegistry(maximum: connections.maximumConnections)
    let http1 = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [SlowClientGuard(limits: connections, registry: registry)]
        )
    )
    return Application(
        router: router,
        server: try configuration.tls.map { try .tls(http1, tlsConfiguration: try $0.makeConfiguration()) } ?? http1,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "strongroom"
        ),
        onServerRunning: { channel in
            if let port = channel.localAddress?.port { baseURL.bound(port: port) }
        },
        logger: logger
    )
}

/// Builds the embedded default: SQLite and the token key in `configuration.dataDirectory`. The returned
/// application also owns the database and closes it on graceful shutdown.
public func buildEmbeddedApplication(
    configuration: ServerConfiguration,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let database = try await EmbeddedDatabase.open(dataDirectory: configuration.dataDirectory, logger: logger)
    return try await buildApplication(configuration: configuration, database: database, logger: logger)
}

/// Builds the server over an open database; the application takes ownership and closes it on graceful shutdown
/// (or here, if building fails).
public func buildApplication(
    configuration: ServerConfiguration,
    database: some ServerDatabase,
    logger: Logger
) async throws -> some ApplicationProtocol {
    do {
        var app = try await buildApplication(
            configuration: configuration,
            store: database.store,
            tokenKey: try loadTokenKey(dataDirectory: configuration.dataDirectory),
            logger: logger
        )
        app.addServices(database)
        return app
    } catch {
        try await database.close()
        throw error
    }
}

/// Start-up work every instance may repeat safely.
private func prepare(store: any ServerStore, configuration: ServerConfiguration, logger: Logger) async throws {
    if try await store.setting("backup_client_id") == nil {
        // The account's backup client: a real client with a public key, so SDKs that back up credentials can
        // share with it. Its private key is not kept by the server.
        let key = EncryptionPrivateKey()
        let backup = StoredClient(
            clientID: SecureRandom.uuid().uuidString.lowercased(),
            name: "account backup",
            publicKey: PublicKeyObject(curve25519: key.publicKey.base64URLEncoded),
            signingKey: nil,
            apiKeyID: hex(SecureRandom.data(count: 32)),
            apiSecretHash: AccountRoutes.hash(secret: hex(SecureRandom.data(count: 32))),
            enabled: true,
            created: Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000)),
            registrationToken: nil
        )
        try await store.insertClient(backup)
        try await store.setSettingIfAbsent("backup_client_id", value: backup.clientID)
    }
    if let token = configuration.registrationToken {
        if token.utf8.count < 32 {
            logger.warning(
                "the preset registration token is shorter than 32 characters: it can be guessed; use `token create`"
            )
        }
        try await store.createRegistrationToken(
            StoredRegistrationToken(token: token, name: "preset", uses: 0, maximumUses: nil, enabled: true)
        )
    } else if try await store.registrationTokens().isEmpty {
        // First start: make one token so that clients can register, and show it once to the operator.
        let token = hex(SecureRandom.data(count: 32))
        try await store.createRegistrationToken(
            StoredRegistrationToken(token: token, name: "first-run", uses: 0, maximumUses: nil, enabled: true)
        )
        logger.notice(
            "created a first registration token; see `strongroom-server token list`",
            metadata: ["registration_token": .string(token)]
        )
    }
}

/// The bearer-token HMAC key: `STRONGROOM_TOKEN_KEY` (unpadded base64url of 32 bytes) when set, so that instances on
/// several machines agree; otherwise `token.key` in the data directory, created on first use (mode 0600).
public func loadTokenKey(dataDirectory: String) throws -> SecureBytes {
    if let configured = ProcessInfo.processInfo.environment["STRONGROOM_TOKEN_KEY"], !configured.isEmpty {
        let key = try Base64URL.decodeSecret(configured)
        guard key.count == 32 else { throw ServerError(.configuration, "STRONGROOM_TOKEN_KEY must hold 32 bytes") }
        return key
    }
    try DataDirectory.prepare(dataDirectory)
    return SecureBytes(copying: try DataDirectory.tokenKey(in: dataDirectory))
}
