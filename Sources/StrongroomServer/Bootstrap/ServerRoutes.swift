// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomPKI
import StrongroomWire

/// Every route collection of the server with the checks its kind runs (``RouteGuard``), built over one store: the
/// composition root of the routes. ``mount(on:)`` puts them on a router.
struct ServerRoutes {
    /// Each collection with the guard it is mounted behind, in mounting order.
    private(set) var mounts: [(collection: RouteCollection<StrongroomRequestContext>, guarding: RouteGuard)] = []
    /// The middleware each guard runs before a route.
    let middleware: [RouteGuard: [any MiddlewareProtocol<Request, Response, StrongroomRequestContext>]]
    /// The URL presigned transfers point at (it learns the port once the server listens).
    let baseURL: PublicBaseURL

    /// Builds every part over `store`.
    init(
        configuration: ServerConfiguration,
        store: SQLServerStore,
        tokenKey: SecureBytes,
        clock: ServerClock,
        metrics: ServerMetrics,
        logger: Logger,
        announcer: (any WriteAnnouncer)? = nil
    ) async throws {
        let limits = configuration.limits
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
        baseURL = try PublicBaseURL(
            publicURL: configuration.publicURL,
            scheme: configuration.tls == nil ? "http" : "https",
            host: configuration.host
        )
        let keyLog = try ServerKeyLog(
            tokenKey: tokenKey,
            store: store,
            clock: clock,
            witnesses: configuration.keyLogWitnesses,
            logger: logger,
            tampering: configuration.keyLogTampering
        )
        let keyLogRoutes = KeyLogRoutes(log: keyLog, store: store, limits: limits)
        let account = AccountRoutes(
            store: store,
            keyLog: keyLog,
            tokens: tokens,
            tokenLifetime: configuration.tokenLifetime,
            limits: limits,
            failures: failures,
            clock: clock
        )
        let accessKeys = AccessKeyRoutes(
            store: store,
            authorization: authorization,
            results: results,
            limits: limits,
            clock: clock
        )
        let rotations = AccessKeyRotationRoutes(
            store: store,
            authorization: authorization,
            limits: limits,
            clock: clock
        )
        let replicated = ReplicatedRecordRules(
            authorization: SyncAuthorization(store: store, limits: limits),
            store: store,
            limits: limits
        )
        let records = RecordRoutes(
            store: store,
            replicated: replicated,
            clock: clock,
            authorization: authorization,
            results: results,
            blobs: blobs,
            limits: limits,
            fence: KeyGenerationFence(store: store)
        )
        let policies = PolicyRoutes(store: store, authorization: authorization, limits: limits, clock: clock)
        let files = FileRoutes(
            store: store,
            replicated: replicated,
            blobs: blobs,
            signer: try BlobURLSigner(tokenKey: tokenKey, lifetime: limits.presignedURLLifetime.wholeSeconds),
            clock: clock,
            authorization: authorization,
            limits: limits,
            baseURL: baseURL,
            metrics: metrics
        )
        let fileKeys = FileKeyRoutes(
            store: store,
            blobs: blobs,
            authorization: authorization,
            limits: limits,
            clock: clock
        )
        let searchV2 = SearchV2Routes(store: store, results: results, limits: limits)
        let sync = SyncRoutes(
            store: store,
            clock: clock,
            authorization: authorization,
            replicated: replicated,
            limits: limits
        )
        let changes = TypeChanges()
        announcer?.deliver { [changes, metrics] writes in
            switch writes {
            case .types(let types):
                metrics.receivedAnnouncement()
                changes.signal(types)
            case .unknown:
                metrics.receivedUnknownAnnouncement()
                changes.signalAll()
            }
        }
        let syncChanges = SyncChangesRoute(
            changes: changes,
            looks: SharedLooks(store: store, metrics: metrics, window: SyncChangesRoute.window),
            // Other instances' writes arrive as announcements: a look at the database only as a safety net.
            lookInterval: announcer == nil ? .seconds(1) : .seconds(10),
            metrics: metrics,
            waits: WaitingClients(),
            limits: limits,
            waitsTotal: limits.syncWaitsTotal ?? max(1, configuration.connections.maximumConnections / 4)
        )
        let notes = NoteRoutes(store: store, clock: clock, limits: limits)
        let clients = ClientCache(store: store, ttl: configuration.clientCacheLifetime)
        let keyChanges = KeyChangeRoutes(store: store, results: results, clients: clients, limits: limits, clock: clock)
        let hybridKeys = HybridKeyRoutes(store: store, keyLog: keyLog, clock: clock)
        let signatures = TSV1Verifier(
            store: store,
            clients: clients,
            window: configuration.signatureWindow,
            clock: clock
        )
        let mutualTLS = configuration.tls.flatMap { $0.isMutual ? $0.clientCertificates : nil }
        let integrityPolicy = IntegrityPolicy(
            refusal: configuration.integrityRefusal,
            adminToken: configuration.adminToken
        )
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
            authority: try Self.loadCertificateAuthority(at: configuration.caFolder),
            clock: clock,
            lifetime: configuration.clientCertificateLifetime,
            limits: limits
        )

        let admin = AdminToken(value: configuration.adminToken)
        middleware = [
            .open: [],
            .admin: [AdminTokenMiddleware(token: admin)],
            .client: [authentication, refusal, WriteSignalMiddleware(changes: changes, announcer: announcer)],
            .integrityCheckIn: [authentication],
            .note: [NoteAuthenticationMiddleware(signatures: signatures, certificates: certificates), refusal],
            .certificate: [CertificateAuthenticationMiddleware(certificates: certificates, clients: clients), refusal],
        ]
        mounts.append((OperationRoutes.health(readiness: Readiness(store: store, logger: logger)), .open))
        mounts.append((OperationRoutes.metrics(metrics), .admin))
        mounts.append((account.publicRoutes, .open))
        mounts.append((files.presignedRoutes, .open))
        mounts.append((pki.publicRoutes, .open))
        mounts.append((keyLogRoutes.publicRoutes, .open))
        mounts.append((pki.renewalRoutes, .certificate))
        mounts.append((pki.routes, .client))
        // Never refused by the integrity policy: a refused client must be able to check in a better report.
        mounts.append((integrity.routes, .integrityCheckIn))
        mounts.append((integrity.adminRoutes, .admin))
        for collection in [
            account.routes, accessKeys.routes, rotations.routes, records.routes, files.routes, policies.routes,
        ] {
            mounts.append((collection, .client))
        }
        mounts.append((fileKeys.routes, .client))
        mounts.append((searchV2.routes, .client))
        mounts.append((sync.routes, .client))
        mounts.append((syncChanges.routes, .client))
        mounts.append((keyLogRoutes.routes, .client))
        mounts.append((keyChanges.routes, .client))
        mounts.append((hybridKeys.routes, .client))
        mounts.append((notes.routes, .note))
    }

    /// Mounts every collection on `router` behind its guard's middleware; returns what it mounted.
    func mount(on router: Router<StrongroomRequestContext>) -> [RouteInventoryEntry] {
        var table = RouteTable(router: router, middleware: middleware)
        for (collection, guarding) in mounts { table.mount(collection, guarding: guarding) }
        return table.inventory
    }

    /// The CA in `folder`, or nil; a CA that cannot be used is a configuration error.
    private static func loadCertificateAuthority(at folder: String) throws(ServerError) -> CertificateAuthority? {
        do {
            return try CertificateAuthority.load(at: folder)
        } catch {
            throw ServerError(.configuration, error.context.message, underlying: error)
        }
    }
}
