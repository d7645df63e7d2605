// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import StrongroomServerPostgres
import StrongroomTesting

@testable import StrongroomServer

/// Runs `body` with a migrated store on `engine`: SQLite in a temporary directory, or a fresh PostgreSQL database.
func withStore(
    _ engine: TestEngine,
    _ body: @escaping @Sendable (SQLServerStore) async throws -> Void
) async throws {
    var logger = Logger(label: "store-test")
    logger.logLevel = .warning
    switch engine {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore(body)
        }
    case .postgres:
        try await TestDatabase.withPostgres { url in
            try await PostgresServerDatabase.open(url: url, logger: logger).withStore(body)
        }
    }
}
