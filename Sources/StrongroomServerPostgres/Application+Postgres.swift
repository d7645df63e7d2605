// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
public import Logging
public import StrongroomServer

/// Builds the server on PostgreSQL at `databaseURL`; blobs and (unless `STRONGROOM_TOKEN_KEY` is set) the token key
/// stay in `configuration.dataDirectory`. The application owns the pool and closes it on graceful shutdown.
public func buildPostgresApplication(
    configuration: ServerConfiguration,
    databaseURL: String,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let database = try await PostgresServerDatabase.open(url: databaseURL, logger: logger)
    return try await buildApplication(configuration: configuration, database: database, logger: logger)
}
