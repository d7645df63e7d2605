// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

/// A malicious server against a revoke that rotates (docs/design/Revocation.md): one that takes the rotation but then
/// serves the old key back is caught by the writer before anything is re-wrapped; one that withholds or alters the
/// links between generations withholds records, and discloses nothing; one that hides a rotation from the writer's
/// second device (no generation in its answers, so no fence) gets that device's next writes under the old key.
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

    @Test("a server that cuts the re-wrap, then drops or alters the links: records left, never lost or misread")
    func withheldLinks() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let reader = Client(
                configuration: try await Client.register(token: "hostile", clientName: "reader", apiURL: url)
            )
            let revoked = try await Client.register(token: "hostile", clientName: "revoked", apiURL: url)
            let honest = Client(configuration: writerConfiguration)
            for index in 0..<5 { _ = try await honest.write(type: "linked", data: ["n": "\(index)"]) }
            for id in [reader.configuration.clientID, revoked.clientID] {
                try await honest.share(type: "linked", readerID: id)
            }
            let writerID = writerConfiguration.clientID.uuidString.lowercased()
            // The rotation commits; the server then cuts the re-wrap (its first page of records answered with a cut
            // connection): the revoke fails after its commit, all 5 records still under generation 1.
            try await HostileServer.with(
                upstream: url,
                tamper: { path, _, response in path == "/v1/storage/search" ? .cut : .answer(response) }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                await #expect(throws: ClientError.self) {
                    try await Client(configuration: through).revoke(type: "linked", readerID: revoked.clientID)
                }
            }
            // Finishing through a server that drops the links, or alters them: nothing re-wrapped, the 5 left.
            let generation = "/v2/storage/access_keys/\(writerID)/\(writerID)/linked"
            let attacks: [@Sendable (inout [[String: Any]]) -> Void] = [
                { $0 = [] },
                { links in
                    for index in links.indices {
                        let previous = links[index]["previous"] as? String ?? ""
                        links[index]["previous"] = (previous.hasPrefix("A") ? "B" : "A") + previous.dropFirst()
                    }
                },
            ]
            for attack in attacks {
                try await HostileServer.with(
                    upstream: url,
                    tamper: { path, _, response in
                        guard path == generation,
                            var body = try? JSONSerialization.jsonObject(with: response) as? [String: Any],
                            var links = body["links"] as? [[String: Any]]
                        else { return .answer(response) }
                        attack(&links)
                        body["links"] = links
                        return .answer((try? JSONSerialization.data(withJSONObject: body)) ?? response)
                    }
                ) { proxy in
                    var through = writerConfiguration
                    through.apiURL = proxy
                    let report = try await Client(configuration: through).finishKeyRotation(type: "linked")
                    #expect(
                        report.generation == 2 && report.recordsRewrapped == 0 && report.recordsLeft == 5,
                        "\(report)"
                    )
                }
            }
            // The honest server's links finish it: the remaining reader reads every record.
            let report = try await Client(configuration: writerConfiguration).finishKeyRotation(type: "linked")
            #expect(report.recordsRewrapped == 5 && report.recordsLeft == 0, "\(report)")
            let page = try await reader.query(
                QueryParams(count: 10, types: ["linked"], writerIDs: [writerConfiguration.clientID])
            )
            #expect(Set(page.records.compactMap { $0.data["n"] }) == Set((0..<5).map { "\($0)" }))
        }
    }

    @Test("a server that hides a rotation from a second device: its writes stay under the old key until finished")
    func hiddenRotation() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let kept = Client(
                configuration: try await Client.register(token: "hostile", clientName: "kept", apiURL: url)
            )
            let revoked = Client(
                configuration: try await Client.register(token: "hostile", clientName: "revoked", apiURL: url)
            )
            let laptop = Client(configuration: writerConfiguration)
            _ = try await laptop.write(type: "hidden", data: ["n": "0"])
            for reader in [kept, revoked] {
                try await laptop.share(type: "hidden", readerID: reader.configuration.clientID)
            }
            // The revoked reader's key, as it opened it before its revocation.
            let writerID = writerConfiguration.clientID.uuidString.lowercased()
            let readerID = revoked.configuration.clientID.uuidString.lowercased()
            let eak = try await revoked.authenticated(
                .GET,
                "/v1/storage/access_keys/\(writerID)/\(writerID)/\(readerID)/hidden",
                success: [200],
                as: AccessKeyResponse.self
            )
            let stolen = try EncryptedAccessKey(wireFormat: eak.eak).open(
                authorizerPublicKey: try EncryptionPublicKey(
                    base64URLEncoded: eak.authorizerPublicKey.curve25519 ?? ""
                ),
                readerPrivateKey: revoked.configuration.keys.encryptionKey
            )
            func fields(of id: UUID) async throws -> [EncryptedField] {
                let record = try await laptop.authenticated(
                    .GET,
                    "/v1/storage/records/\(id.uuidString.lowercased())",
                    success: [200],
                    as: RecordResponse.self
                )
                return try record.data.values.map { try EncryptedField(wireFormat: $0) }
            }
            // The proxy answers without X-Strongroom-Key-Generation: the phone never learns its key's generation,
            // so it sends no fence, and the server cannot tell its write is stale.
            let written = Mutex<UUID?>(nil)
            try await HostileServer.with(upstream: url, tamper: { _, _, response in .answer(response) }) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                let phone = Client(configuration: through)
                _ = try await phone.write(type: "hidden", data: ["n": "1"])  // its key cached, generation unknown
                try await laptop.revoke(type: "hidden", readerID: revoked.configuration.clientID)
                let id = try await phone.write(type: "hidden", data: ["n": "2"]).meta.recordID
                written.withLock { $0 = id }
            }
            let stale = try #require(written.withLock { $0 })
            // Withheld from the remaining reader, open to the revoked reader's old key: what the key log's leaf
            // per generation is to catch (docs/design/Revocation.md, "What a malicious server can do").
            let error = await #expect(throws: ClientError.self) { _ = try await kept.read(recordID: stale) }
            #expect(error?.code == .tampered, "\(String(describing: error))")
            #expect(try await fields(of: stale).allSatisfy { FieldCipher.isSealed($0, under: stolen) })
            // The writer's next finish (or rotation) re-wraps it: read by the remaining reader, closed to the old key.
            let report = try await laptop.finishKeyRotation(type: "hidden")
            #expect(report.recordsRewrapped == 1 && report.recordsLeft == 0, "\(report)")
            #expect(try await kept.read(recordID: stale).data["n"] == "2")
            #expect(try await fields(of: stale).allSatisfy { !FieldCipher.isSealed($0, under: stolen) })
        }
    }
}
