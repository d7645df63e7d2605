// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

/// The real `strongroom-server` executable on a free port, on the requested engine.
enum ClientTestServer {
    static let registrationToken = "client-test-token"

    static func run<R>(engine: TestEngine, _ body: (URL) async throws -> R) async throws -> R {
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", registrationToken]) {
            server,
            _ in
            try await body(try #require(URL(string: server.baseURL)))
        }
    }

    /// Ten minutes a request: a test client never gives up before the pass's watchdog would, so a test on a busy
    /// machine (or in the strict pass, where every task and the network share one thread) is slow, not failed.
    static let unhurried = Client.TransportOptions(requestTimeout: .seconds(600))

    static func client(_ url: URL, _ name: String = "swift") async throws -> Client {
        let configuration = try await Client.register(
            token: registrationToken,
            clientName: name,
            apiURL: url,
            options: unhurried
        )
        return try Client(configuration: configuration, options: unhurried)
    }
}

/// A client of the official Python SDK, driven through `Scripts/conformance/interop_client.py`; its configuration
/// lives in `directory`.
struct PythonPeer {
    let url: URL
    let directory: URL
    var config: String { directory.appending(path: "python.json").path }

    /// Runs a command of the script with this peer's configuration file where the command takes one.
    func run(_ arguments: [String]) async throws -> String {
        let outcome = try await PythonSDK.run(
            [PythonSDK.path("Scripts/conformance/interop_client.py")] + arguments,
            environment: [
                "STRONGROOM_URL": url.absoluteString, "REGISTRATION_TOKEN": ClientTestServer.registrationToken,
            ]
        )
        try #require(outcome.status == 0, "\(outcome.output)")
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Registers the peer and returns its client ID.
    func register() async throws -> UUID {
        try #require(UUID(uuidString: try await run(["register", config])))
    }
}
