// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
public import Logging
public import StrongroomServer

/// Builds the server on PostgreSQL at `databaseURL`, with file bodies in the database unless
/// `ServerConfiguration.blobStorage` says otherwise. A configuration other instances could not share
/// (a local blob folder, a token key from the data directory) is refused unless
/// `ServerConfiguration.singleInstance` is set. The application owns the pool and closes it on
/// graceful shutdown.
public func buildPostgresApplication(
    configuration: ServerConfiguration,
    databaseURL: String,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let database = try await PostgresServerDatabase.open(url: databaseURL, logger: logger)
    return try await buildApplication(configuration: configuration, database: database, logger: logger)
}
