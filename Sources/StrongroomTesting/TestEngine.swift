// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import Testing

/// The storage engines every server test runs against.
public enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The embedded default.
    case sqlite
    /// PostgreSQL, in a fresh database of the test cluster.
    case postgres

    public var testDescription: String { rawValue }

    /// `STRONGROOM_TEST_POSTGRES_URL`: an admin URL of a throw-away cluster (`Scripts/postgres.sh start`).
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["STRONGROOM_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite always; PostgreSQL when a cluster is configured, and always in CI (where a missing cluster fails the
    /// test with a message naming the script).
    public static var available: [TestEngine] {
        postgresURL != nil || ProcessInfo.processInfo.environment["CI"] != nil ? [.sqlite, .postgres] : [.sqlite]
    }
}

/// Fresh PostgreSQL databases for tests, made and dropped with `psql` against the test cluster.
public enum TestDatabase {
    /// Runs `body` with the URL of a fresh database, dropped afterwards whatever happens.
    public static func withPostgres<R>(_ body: (String) async throws -> R) async throws -> R {
        guard let admin = TestEngine.postgresURL else {
            throw TestDatabaseError(
                "no PostgreSQL cluster: run `Scripts/postgres.sh start` and set STRONGROOM_TEST_POSTGRES_URL (Scripts/test.sh does)"
            )
        }
        let name = "strongroom_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await psql(admin, "CREATE DATABASE \(name)")
        guard var components = URLComponents(string: admin) else {
            throw TestDatabaseError("bad STRONGROOM_TEST_POSTGRES_URL")
        }
        components.path = "/" + name
        let url = components.string ?? admin
        do {
            let result = try await body(url)
            try await psql(admin, "DROP DATABASE \(name) WITH (FORCE)")
            return result
        } catch {
            try? await psql(admin, "DROP DATABASE \(name) WITH (FORCE)")  // the test's own error matters more
            throw error
        }
    }

    /// Runs one SQL statement with `psql`.
    public static func psql(_ url: String, _ statement: String) async throws {
        let outcome = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/psql"),
            arguments: [url, "-v", "ON_ERROR_STOP=1", "-qc", statement]
        )
        guard outcome.status == 0 else { throw TestDatabaseError("psql failed: \(outcome.output)") }
    }
}

/// A test database could not be made or dropped.
public struct TestDatabaseError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
