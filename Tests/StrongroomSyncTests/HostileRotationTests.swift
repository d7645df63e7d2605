// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Synchronization
import Testing

/// A malicious server against a revoke that rotates (docs/design/Revocation.md): one that takes the rotation but then
/// serves the old key back is caught by the writer before anything is re-wrapped.
@Suite struct HostileRotationTests {
    @Test("a server that serves the pre-rotation key back after a rotation: the writer's revoke is tampered")
    func rolledBackKey() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let reader = Client(
                configuration: try await Client.register(token: "hostile", clientName: "reader", apiURL: url)
            )
            let honest = Client(configuration: writerConfiguration)
            _ = try await honest.write(type: "kept-old", data: ["n": "1"])
            try await honest.share(type: "kept-old", readerID: reader.configuration.clientID)
            let writerID = writerConfiguration.clientID.uuidString.lowercased()
            let ownKey = "/v1/storage/access_keys/\(writerID)/\(writerID)/\(writerID)/kept-old"
            // The first answer for the writer's own key is the old one; the server replays it ever after.
            let first = Mutex<Data?>(nil)
            try await HostileServer.with(
                upstream: url,
                tamper: { path, _, response in
                    guard path == ownKey else { return .answer(response) }
                    return .answer(
                        first.withLock { kept in
                            if kept == nil { kept = response }
                            return kept ?? response
                        }
                    )
                }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                let writer = Client(configuration: through)
                let error = await #expect(throws: ClientError.self) {
                    try await writer.revoke(type: "kept-old", readerID: reader.configuration.clientID)
                }
                #expect(error?.code == .tampered, "\(String(describing: error))")
            }
        }
    }
}
