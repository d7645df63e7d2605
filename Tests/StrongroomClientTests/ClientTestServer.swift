// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

/// The real `strongroom-server` executable on a free port, on the requested engine.
enum ClientTestServer {
    static let registrationToken = "client-test-token"

    static func run<R>(engine: TestEngine, _ body: (URL) async throws -> R) async throws -> R {
        try await withTemporaryDirectory { directory in
            func start(_ extra: [String]) async throws -> R {
                let server = try await ServerProcess(
                    arguments: ["--data-directory", directory.path, "--registration-token", registrationToken] + extra
                )
                defer { server.stop() }
                let url = try #require(URL(string: server.baseURL))
                return try await body(url)
            }
            switch engine {
            case .sqlite: return try await start([])
            case .postgres: return try await TestDatabase.withPostgres { try await start(["--database-url", $0]) }
            }
        }
    }

    static func client(_ url: URL, _ name: String = "swift") async throws -> Client {
        Client(configuration: try await Client.register(token: registrationToken, clientName: name, apiURL: url))
    }
}
