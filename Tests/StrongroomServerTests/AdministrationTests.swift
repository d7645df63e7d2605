// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom-server token create|list|revoke`, run as the real executable.
@Suite struct AdministrationTests {
    func server(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
        try await ExternalProcess.run(ServerProcess.executable, arguments: arguments)
    }

    @Test("tokens are created, listed with their uses, and revoked", arguments: TestEngine.available)
    func tokens(engine: TestEngine) async throws {
        try await withTemporaryDirectory { directory in
            func run(_ databaseURL: String?) async throws {
                let data = ["--data-directory", directory.path] + (databaseURL.map { ["--database-url", $0] } ?? [])
                let created = try await server(["token", "create", "--name", "ops", "--maximum-uses", "3"] + data)
                #expect(created.status == 0, "\(created.output)")
                let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(token.count == 64)
                let listed = try await server(["token", "list"] + data)
                #expect(listed.output.contains("\(token)  ops  uses 0/3  enabled"), "\(listed.output)")
                #expect(try await server(["token", "revoke", token] + data).status == 0)
                #expect(try await server(["token", "list"] + data).output.contains("revoked"))
                let unknown = try await server(["token", "revoke", "nope"] + data)
                #expect(unknown.status != 0)
            }
            switch engine {
            case .sqlite: try await run(nil)
            case .postgres: try await TestDatabase.withPostgres { try await run($0) }
            }
        }
    }

    @Test("read-only commands on a folder with no database fail and create nothing")
    func readingNeverCreates() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appending(path: "strongroom-data")
            for command in [
                ["token", "list"], ["token", "revoke", "x"], ["ca", "list"], ["integrity", "list"],
                ["blobs", "sweep"],
            ] {
                let outcome = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: command + ["--data-directory", missing.path]
                )
                #expect(outcome.status != 0, "\(command): \(outcome.output)")
                #expect(
                    outcome.output.contains("no Strongroom database") || outcome.output.contains("holds no CA"),
                    "\(command): \(outcome.output)"
                )
                #expect(!FileManager.default.fileExists(atPath: missing.path), "\(command) created the data directory")
            }
            // Run with no --data-directory in a folder: the default ./strongroom-data is not made either.
            let defaulted = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["token", "list"],
                directory: directory
            )
            #expect(defaulted.status != 0)
            #expect(!FileManager.default.fileExists(atPath: missing.path), "token list created ./strongroom-data")
        }
    }
}
