// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
package import StrongroomCore
import StrongroomCrypto
import StrongroomPKI
import StrongroomWire

/// Builds the Strongroom server over `store`: routes, authentication, and the start-up work (account backup
/// client, preset registration token); hands `routeInventory` every route it mounts with its ``RouteGuard`` (the
/// route-guard test reads it).
///
/// - Parameters:
///   - configuration: address, limits and token lifetime.
///   - store: where everything is kept; it knows its engine (which decides what a deployment may share) and counts
///     its statements for `GET /metrics`.
///   - tokenKey: the 32-byte HMAC key for bearer tokens (every instance sharing `store` must use the same one).
///   - logger: where the server logs (the SQL layer never below `info`).
package func buildApplication(
    configuration: ServerConfiguration,
    store: SQLServerStore,
    tokenKey: SecureBytes,
    logger: Logger,
    routeInventory: (([RouteInventoryEntry]) -> Void)? = nil
) async throws -> Application<RouterResponder<StrongroomRequestContext>> {
    let clock = ServerClock(configuration.clock)
    try await prepare(store: store, configuration: configuration, clock: clock, logger: logger)
    let limits = configuration.limits
    let metrics = ServerMetrics(databaseUse: store.use)
    let tokens = TokenIssuer(key: tokenKey)
    let authorization = Authorization(store: store)
    let results = RecordResults(store: store, limits: limits)
    let deployment = Deployment(configuration: configuration, engine: store.engine)
    let blobs =
        try await deployment
        .makeBlobStore(store: store, dataDirectory: configuration.dataDirectory, clock: clock)
    // Instances sharing a database share the failed-credential count; one instance counts in memory.
    let failures: any FailureCounting =
        if deployment.isShareable {
            SharedFailureRateLimiter(
                store: store,
                clock: clock,
                failuresPerMinute: limits.authenticationFailuresPerMinute
            )
        } else {
            FailureRateLimiter(failuresPerMinute: limits.authenticationFailuresPerMinute)
        }
    let baseURL = try PublicBaseURL(
        publicURL: configuration.publicURL,
        scheme: configuration.tls == nil ? "http" : "https",
        host: configuration.host
    )
    let account = AccountRoutes(
        store: store,
        tokens: tokens,
        tokenLifetime: configuration.tokenLifetime,
        limits: limits,
        failures: failures,
        clock: clock
    )
    let accessKeys = AccessKeyRoutes(store: store, authorization: authorization, results: results, limits: limits)
    let records = RecordRoutes(
        store: store,
        clock: clock,
        authorization: authorization,
        results: results,
        blobs: blobs,
        limits: limits
    )
    let policies = PolicyRoutes(store: store, authorization: authorization, limits: limits)
    let files = FileRoutes(
        store: store,
        blobs: blobs,
        signer: try BlobURLSigner(tokenKey: tokenKey, lifetime: limits.presignedURLLifetime.wholeSeconds),
        clock: clock,
        authorization: authorization,
        limits: limits,
        baseURL: baseURL,
        metrics: metrics
    )
    let searchV2 = SearchV2Routes(store: store, results: results, limits: limits)
    let notes = NoteRoutes(store: store, clock: clock, limits: limits)
    let clients = ClientCache(store: store)
    let signatures = TSV1Verifier(
        store: store,
        clients: clients,
        window: configuration.signatureWindow,
        clock: clock
    )
    let mutualTLS = configuration.tls.flatMap { $0.isMutual ? $0.clientCertificates : nil }
    let integrityPolicy = IntegrityPolicy(refusal: configuration.integrityRefusal, adminToken: configuration.adminToken)
    let certificates = ClientCertificateCheck(store: store, clock: clock, mode: mutualTLS)
    let authentication = AuthenticationMiddleware(
        tokens: tokens,
        clients: clients,
        signatures: signatures,
        clock: clock,
        certificates: certificates
    )
    let refusal = IntegrityRefusalMiddleware(policy: integrityPolicy, store: store)
    let integrity = IntegrityRoutes(
        store: store,
        authorization: authorization,
        clock: clock,
        policy: integrityPolicy,
        limits: limits
    )
    let pki = PKIRoutes(
        store: store,
        authority: try loadCertificateAuthority(at: configuration.caFolder),
        clock: clock,
        lifetime: configuration.clientCertificateLifetime,
        limits: limits
    )

    let router = Router(context: StrongroomRequestContext.self)
    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    router.add(middleware: ErrorMappingMiddleware())
    let admin = AdminToken(value: configuration.adminToken)
    var table = RouteTable(
        router: router,
        middleware: [
            .open: [],
            .admin: [AdminTokenMiddleware(token: admin)],
            .client: [authentication, refusal],
            .integrityCheckIn: [authentication],
            .note: [NoteAuthenticationMiddleware(signatures: signatures, certificates: certificates), refusal],
            .certificate: [CertificateAuthenticationMiddleware(certificates: certificates, clients: clients), refusal],
        ]
    )
    let operations = RouteCollection(context: StrongroomRequestContext.self)
    operations.get("/health") { _, _ in try json(["status": "ok"]) }
    let readiness = Readiness(store: store, logger: logger)
    operations.get("/ready") { _, _ in try await readiness.respond() }
    operations.get("/openapi.yaml") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "application/yaml"],
            body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml))
        )
    }
    table.mount(operations, guarding: .open)
    let metricsRoutes = RouteCollection(context: StrongroomRequestContext.self)
    metricsRoutes.get("/metrics") { _, _ in
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
    table.mount(metricsRoutes, guarding: .admin)
    table.mount(account.publicRoutes, guarding: .open)
    table.mount(files.presignedRoutes, guarding: .open)
    table.mount(pki.publicRoutes, guarding: .open)
    table.mount(pki.renewalRoutes, guarding: .certificate)
    table.mount(pki.routes, guarding: .client)
    // Never refused by the integrity policy: a refused client must be able to check in a better report.
    table.mount(integrity.routes, guarding: .integrityCheckIn)
    table.mount(integrity.adminRoutes, guarding: .admin)
    for collection in [account.routes, accessKeys.routes, records.routes, files.routes, policies.routes] {
        table.mount(collection, guarding: .client)
    }
    table.mount(searchV2.routes, guarding: .client)
    table.mount(notes.routes, guarding: .note)
    routeInventory?(table.inventory)

    let connections = configuration.connections
    let registry = ConnectionRegistry(maximum: connections.maximumConnections)
    let http1 = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [SlowClientGuard(limits: connections, registry: registry)]
        )
    )
    return Application(
        router: router,
        server: try serverBuilder(http1, configuration: configuration, store: store, clock: clock, logger: logger),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "strongroom"
        ),
        onServerRunning: { [portFile = configuration.portFile, mode = ListeningMode(configuration)] channel in
            guard let port = channel.localAddress?.port else { return }
            baseURL.bound(port: port)
            logger.notice("serving \(mode.scheme)://\(configuration.host):\(port)\(mode.clientCertificates)")
            if let portFile {
                do {
                    try AtomicFile.write(Data("\(port)\n".utf8), to: portFile)
                } catch {
                    logger.error("the port file could not be written", metadata: ["reason": .string("\(error)")])
                }
            }
        },
        logger: logger
    )
}

/// The CA in `folder`, or nil; a CA that cannot be used is a configuration error.
private func loadCertificateAuthority(at folder: String) throws(ServerError) -> CertificateAuthority? {
    do {
        return try CertificateAuthority.load(at: folder)
    } catch {
        throw ServerError(.configuration, error.context.message, underlying: error)
    }
}

/// How the start-up line describes the listener: `http` or `https`, and whether clients present certificates.
private struct ListeningMode {
    var scheme: String
    var clientCertificates: String

    init(_ configuration: ServerConfiguration) {
        guard let tls = configuration.tls else {
            (scheme, clientCertificates) = ("http", " (plain HTTP: put TLS in front of it, or pass --tls-*)")
            return
        }
        scheme = "https"
        clientCertificates =
            tls.clientCertificateAuthorityPath == nil
            ? " (TLS; no client certificates)" : " (TLS; client certificates \(tls.clientCertificates.rawValue))"
    }
}

/// Plain HTTP, TLS, or mutual TLS with the server's own client-certificate verifier.
private func serverBuilder(
    _ http1: HTTPServerBuilder,
    configuration: ServerConfiguration,
    store: any CertificateStore,
    clock: ServerClock,
    logger: Logger
) throws -> HTTPServerBuilder {
    guard let tls = configuration.tls else { return http1 }
    guard tls.isMutual else { return try .tls(http1, tlsConfiguration: try tls.makeConfiguration()) }
    let anchors = try tls.clientAnchors()
    let verifier = ClientCertificateVerifier(anchors: anchors, store: store, clock: clock, logger: logger)
    return try .tls(
        http1,
        configuration: TLSChannelConfiguration(
            tlsConfiguration: try tls.makeConfiguration(clientAnchors: anchors),
            customAsyncVerificationCallback: { await verifier.verify($0) }
        )
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
///
/// - Throws: ``ServerError/Code/configuration`` for a PostgreSQL configuration other instances could not share
///   (see ``ServerConfiguration/singleInstance``).
public func buildApplication(
    configuration: ServerConfiguration,
    database: some ServerDatabase,
    logger: Logger
) async throws -> some ApplicationProtocol {
    do {
        let tokenKey = try resolveTokenKey(
            configured: configuration.tokenKey,
            dataDirectory: configuration.dataDirectory
        )
        try Deployment(configuration: configuration, engine: database.store.engine)
            .check(tokenKeyIsShared: tokenKey.shared, singleInstance: configuration.singleInstance)
        var app = try await buildApplication(
            configuration: configuration,
            store: database.store,
            tokenKey: tokenKey.key,
            logger: logger
        )
        app.addServices(database)
        return app
    } catch {
        try await database.close()
        throw error
    }
}
