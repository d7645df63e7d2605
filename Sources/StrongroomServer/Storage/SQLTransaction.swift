// Strongroom — SPDX-License-Identifier: Apache-2.0
package import SQLKit

extension SQLDatabase {
    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws (the
    /// original error is the one reported).
    ///
    /// On SQLite the transaction takes the write lock when it begins (`BEGIN IMMEDIATE`), waiting out the busy
    /// timeout if the checkpointer holds it: a deferred transaction that reads first fails at once ("database is
    /// locked", no wait) when it later needs to write while another connection holds the lock.
    package func transaction<R: Sendable>(
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        let begin = dialect.name == "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"
        return try await withSession { session in
            try await session.raw(SQLQueryString(stringLiteral: begin)).run()
            do {
                let result = try await body(session)
                try await session.raw("COMMIT").run()
                return result
            } catch {
                // Rolling back after a failure being thrown: that error is the one to report.
                try? await session.raw("ROLLBACK").run()
                throw error
            }
        }
    }
}
