// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit

/// Failed credential attempts per source address, shared by every instance on the database.
extension SQLServerStore {
    /// Failures of `source` in the window that started after `cutoff` (microseconds).
    func authenticationFailures(of source: String, since cutoff: Int64) async throws -> Int64 {
        try await database.raw(
            """
            SELECT failures FROM auth_failures WHERE source = \(bind: source) AND window_start > \(bind: cutoff)
            """
        ).first()?.decode(column: "failures", as: Int64.self) ?? 0
    }

    /// Counts one failure of `source` at `now`: in its current window if that started after `cutoff`, else in a
    /// new window starting now. One statement, so concurrent failures on several instances all count.
    func recordAuthenticationFailure(of source: String, now: Int64, cutoff: Int64) async throws {
        try await database.raw(
            """
            INSERT INTO auth_failures (source, window_start, failures) VALUES (\(bind: source), \(bind: now), 1)
            ON CONFLICT (source) DO UPDATE SET
            failures = CASE WHEN auth_failures.window_start > \(bind: cutoff)
                THEN auth_failures.failures + 1 ELSE 1 END,
            window_start = CASE WHEN auth_failures.window_start > \(bind: cutoff)
                THEN auth_failures.window_start ELSE \(bind: now) END
            """
        ).run()
    }

    /// Deletes windows that started at or before `cutoff`.
    func removeAuthenticationFailures(before cutoff: Int64) async throws {
        try await database.raw("DELETE FROM auth_failures WHERE window_start <= \(bind: cutoff)").run()
    }
}
