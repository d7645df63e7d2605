// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import Logging
import NIOPosix
import PostgresKit
import SQLKit
import ServiceLifecycle
import StrongroomCore
public import StrongroomServer

/// The PostgreSQL engine: a pool of connections behind the same `SQLServerStore` as the embedded default, with the
/// record read and insert as prepared statements.
///
/// The server keeps no state of its own, so several instances may serve one database (with the same token key, and
/// file bodies in the database).
// @unchecked: the only stored properties are immutable; AsyncKit's EventLoopGroupConnectionPool synchronises itself
// (a lock plus one pool per event loop) but is not annotated Sendable.
public final class PostgresServerDatabase: ServerDatabase, @unchecked Sendable {
    private let pool: EventLoopGroupConnectionPool<PostgresConnectionSource>
    /// The store over this database.
    public let store: SQLServerStore
    /// `LISTEN`/`NOTIFY` between the instances on this database, on a connection of its own.
    public let announcer: (any WriteAnnouncer)?

    private init(
        pool: EventLoopGroupConnectionPool<PostgresConnectionSource>,
        source: PostgresConnectionSource,
        logger: Logger
    ) {
        self.pool = pool
        let logger = databaseLogger(logger)
        self.announcer = PostgresWriteAnnouncer(
            configuration: source.sqlConfiguration.coreConfiguration,
            logger: logger
        )
        self.store = SQLServerStore(
            database: pool.database(logger: logger).sql(),
            engine: .postgres,
            records: PostgresRecordTable(pool: pool, logger: logger)
        )
    }

    /// Connects to `url` (`postgres://user:password@host:port/database?sslmode=disable|prefer|require`) and
    /// migrates the schema. A request waits up to `connectionWait` for one of the pool's connections (all may be
    /// busy) before it fails.
    public static func open(
        url: String,
        logger: Logger,
        maximumConnectionsPerLoop: Int = 4,
        connectionWait: Duration = .seconds(10)
    ) async throws
        -> PostgresServerDatabase
    {
        let configuration = try SQLPostgresConfiguration(url: url)
        let source = PostgresConnectionSource(sqlConfiguration: configuration)
        // One connection first, its failure reported once in our words: the pool would log PostgresNIO's raw error
        // at error level before it.
        var silent = logger
        silent.logLevel = .critical
        do {
            let probe = try await source.makeConnection(
                logger: silent,
                on: MultiThreadedEventLoopGroup.singleton.any()
            ).get()
            try await probe.close()
        } catch let error as PSQLError {
            throw ServerError(.configuration, Self.describe(error, url: url))
        }
        let pool = EventLoopGroupConnectionPool(
            source: source,
            maxConnectionsPerEventLoop: maximumConnectionsPerLoop,
            requestTimeout: .nanoseconds(connectionWait.nanoseconds),
            logger: databaseLogger(logger),
            on: MultiThreadedEventLoopGroup.singleton
        )
        let database = PostgresServerDatabase(pool: pool, source: source, logger: logger)
        do {
            try await database.store.migrate()
        } catch {
            try await database.close()
            if let error = error as? PSQLError { throw ServerError(.configuration, Self.describe(error, url: url)) }
            throw error
        }
        return database
    }

    /// A start-up failure in the operator's words: PostgresNIO's own description is deliberately empty. The server
    /// (`host:port` from `url`, never its password) and PostgreSQL's own message, which names no secret.
    static func describe(_ error: PSQLError, url: String) -> String {
        let components = URLComponents(string: url)
        let server = "\(components?.host ?? "the server"):\(components?.port ?? 5432)"
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? "an error"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "PostgreSQL at \(server) refused: \(message)\(state)"
        case .connectionError:
            return "PostgreSQL at \(server) could not be reached: is it running, on this address and port?"
        default:
            return "PostgreSQL at \(server) failed: \(error.code)"
        }
    }

    /// Closes every pooled connection.
    public func close() async throws { try await pool.shutdownAsync() }

    /// Waits for graceful shutdown (or cancellation), then closes the pool.
    public func run() async throws {
        try? await gracefulShutdown()  // cancellation also means "shut down"
        try await Task { try await self.close() }.value
    }
}
