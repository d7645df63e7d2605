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
///   - announcer: how writes reach the long-polls of other instances sharing `store` (and theirs this one's); the
///     caller runs it as a service.
package func buildApplication(
    configuration: ServerConfiguration,
    store: SQLServerStore,
    tokenKey: SecureBytes,
    logger: Logger,
    announcer: (any WriteAnnouncer)? = nil,
    routeInventory: (([RouteInventoryEntry]) -> Void)? = nil
) async throws -> Application<RouterResponder<StrongroomRequestContext>> {
    let clock = ServerClock(configuration.clock)
    try await prepare(store: store, configuration: configuration, clock: clock, logger: logger)
    let metrics = ServerMetrics(databaseUse: store.use)
    let routes = try await ServerRoutes(
        configuration: configuration,
        store: store,
        tokenKey: tokenKey,
        clock: clock,
        metrics: metrics,
        logger: logger,
        announcer: announcer
    )
    let baseURL = routes.baseURL
    let router = Router(context: StrongroomRequestContext.self)
    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    router.add(middleware: ErrorMappingMiddleware())
    let inventory = routes.mount(on: router)
    routeInventory?(inventory)

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
            logger: logger,
            announcer: database.announcer
        )
        app.addServices(database)
        if let announcer = database.announcer { app.addServices(announcer) }
        return app
    } catch {
        try await database.close()
        throw error
    }
}
