// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit

extension SQLDatabase {
    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws (the
    /// original error is the one reported).
    func transaction<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await withSession { session in
            try await session.raw("BEGIN").run()
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
