// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// A malicious server against the rotation's one request for every kept reader's keys
/// (`POST /v2/storage/clients/sealing_keys`): each key it swaps, each client it adds or leaves out is refused before
/// the new generation is sealed to anyone; a server without the route gets one lookup per reader, as before.
@Suite struct HostileSealingKeysTests {
    enum Attack: String, CaseIterable, Sendable, CustomStringConvertible {
        /// The kept reader's X25519 key replaced by one of the server's.
        case classicalKey
        /// Its X-Wing key replaced by one of the server's.
        case hybridKey
        /// Its entry twice.
        case duplicate
        /// No entry at all.
        case leftOut
        /// No such route (a server built before it): honest, one lookup per reader.
        case noRoute

        var description: String { rawValue }

        /// What the writer's revoke ends with: nil when it succeeds.
        var expected: ClientError.Code? {
            switch self {
            case .classicalKey: .keyNotLogged
            case .hybridKey: .tampered
            case .duplicate: .invalidResponse
            case .leftOut: .notFound
            case .noRoute: nil
            }
        }

        func apply(to response: Data) -> HostileServer.Verdict {
            guard self != .noRoute else { return .notFound }
            guard var body = try? JSONSerialization.jsonObject(with: response) as? [String: Any],
                var clients = body["clients"] as? [[String: Any]], var entry = clients.first
            else { return .answer(response) }
            switch self {
            case .classicalKey:
                var client = entry["client"] as? [String: Any] ?? [:]
                client["public_key"] = ["curve25519": ClientKeys.generate().encryptionKey.publicKey.base64URLEncoded]
                entry["client"] = client
                clients[0] = entry
            case .hybridKey:
                var hybrid = entry["hybrid_key"] as? [String: Any] ?? [:]
                hybrid["public_key"] = Base64URL.encode(HybridPrivateKey().publicKey.rawRepresentation)
                entry["hybrid_key"] = hybrid
                clients[0] = entry
            case .duplicate: clients.append(entry)
            case .leftOut: clients = []
            case .noRoute: break
            }
            body["clients"] = clients
            return .answer((try? JSONSerialization.data(withJSONObject: body)) ?? response)
        }
    }

    @Test("a swapped, doubled or missing reader key is refused before anything is sealed", arguments: Attack.allCases)
    func attacked(attack: Attack) async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let kept = Client(
                configuration: try await Client.register(token: "hostile", clientName: "kept", apiURL: url)
            )
            let revoked = try await Client.register(token: "hostile", clientName: "revoked", apiURL: url)
            let honest = Client(configuration: writerConfiguration)
            _ = try await honest.write(type: "batch", data: ["n": "1"])
            try await honest.share(type: "batch", readerID: kept.configuration.clientID)
            try await honest.share(type: "batch", readerID: revoked.clientID)
            try await HostileServer.with(
                upstream: url,
                tamper: { path, _, response in
                    path == "/v2/storage/clients/sealing_keys" ? attack.apply(to: response) : .answer(response)
                }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                let writer = Client(configuration: through)
                let outcome: Result<KeyRotationReport?, any Error>
                do {
                    outcome = .success(try await writer.revoke(type: "batch", readerID: revoked.clientID))
                } catch {
                    outcome = .failure(error)
                }
                switch (outcome, attack.expected) {
                case (.success(let report), nil):
                    #expect(report?.readers == 2, "the writer and the kept reader")
                case (.failure(let error), let code?):
                    #expect((error as? ClientError)?.code == code, "\(error)")
                default:
                    Issue.record("\(attack): \(outcome)")
                }
            }
            // Whatever happened, the kept reader reads what the writer writes next, and nothing was sealed to a key
            // of the server's (a rotation refused before its commit leaves the generation as it was).
            let id = try await honest.write(type: "batch", data: ["n": "2"]).meta.recordID
            #expect(try await kept.read(recordID: id).data["n"] == "2")
        }
    }
}
