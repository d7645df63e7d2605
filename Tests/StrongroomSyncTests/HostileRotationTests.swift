// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

/// A malicious server against a revoke that rotates (docs/design/Revocation.md): one that takes the rotation but then
/// serves the old key back is caught by the writer before anything is re-wrapped; one that withholds or alters the
/// links between generations withholds records, and discloses nothing; one that hides a rotation from the writer's
/// second device (no generation in its answers, so no fence) gets that device's writes under the old key only until
/// the device next asks the key log (``KeyLogVerification/generationCheckInterval``); one that serves the old key as
/// current is caught by the key log's leaf per generation (`keyWithheld`), at once when it answers the type's
/// generation leaves honestly, at the device's next full scan (`monitorKeyLog`) when it leaves them out; one that
/// withholds or alters the links of a rotated shared datastore stops its members' syncs (`keyWithheld`) before
/// anything is applied.
@Suite struct HostileRotationTests {
    /// What a server does to the links it serves: drops them all, or alters each.
    static let linkAttacks: [@Sendable (inout [[String: Any]]) -> Void] = [
        { $0 = [] },
        { links in
            for index in links.indices {
                let previous = links[index]["previous"] as? String ?? ""
                links[index]["previous"] = (previous.hasPrefix("A") ? "B" : "A") + previous.dropFirst()
            }
        },
    ]

    /// A proxy's verdict that applies `attack` to the `links` of the answers to paths `chosen` picks.
    static func tamperingLinks(
        where chosen: @escaping @Sendable (String) -> Bool,
        _ attack: @escaping @Sendable (inout [[String: Any]]) -> Void
    ) -> HostileServer.Tamper {
        { path, _, response in
            guard chosen(path),
                var body = try? JSONSerialization.jsonObject(with: response) as? [String: Any],
                var links = body["links"] as? [[String: Any]]
            else { return .answer(response) }
            attack(&links)
            body["links"] = links
            return .answer((try? JSONSerialization.data(withJSONObject: body)) ?? response)
        }
    }

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

    @Test(
        "a server that seals the writer's own key itself, or through a colluding reader: refused, nothing written",
        arguments: [false, true]
    )
    func substitutedOwnKey(colluding: Bool) async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let readerConfiguration = try await Client.register(token: "hostile", clientName: "reader", apiURL: url)
            let honest = Client(configuration: writerConfiguration)
            _ = try await honest.write(type: "sealed-by", data: ["n": "1"])
            try await honest.share(type: "sealed-by", readerID: readerConfiguration.clientID)
            let writerID = writerConfiguration.clientID.uuidString.lowercased()
            let ownKey = "/v1/storage/access_keys/\(writerID)/\(writerID)/\(writerID)/sealed-by"
            // A key the server knows, sealed to the writer under the reader's name: with a key pair of the server's
            // own, or with the reader's real one (a reader colluding with the server).
            let chosen = AccessKey()
            let sealer = colluding ? readerConfiguration.keys.encryptionKey : ClientKeys.generate().encryptionKey
            let forged: [String: Any] = [
                "eak": chosen.sealed(to: writerConfiguration.keys.encryptionKey.publicKey, by: sealer).wireFormat,
                "authorizer_id": readerConfiguration.clientID.uuidString.lowercased(),
                "authorizer_public_key": ["curve25519": sealer.publicKey.base64URLEncoded],
            ]
            let body = try JSONSerialization.data(withJSONObject: forged)
            try await HostileServer.with(
                upstream: url,
                tamper: { path, _, response in path == ownKey ? .answer(body) : .answer(response) }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                let writer = Client(configuration: through)
                let error = await #expect(throws: ClientError.self) {
                    _ = try await writer.write(type: "sealed-by", data: ["n": "2"])
                }
                #expect(error?.code == (colluding ? .keyNotLogged : .tampered), "\(String(describing: error))")
            }
            let stored = try await honest.query(QueryParams(types: ["sealed-by"]))
            #expect(stored.records.map { $0.data["n"] } == ["1"], "nothing was written under the server's key")
        }
    }

    @Test("a server that puts a key of its own inline in the writer's search results: the writer never writes under it")
    func substitutedInlineKey() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
            let honest = Client(configuration: writerConfiguration)
            _ = try await honest.write(type: "sealed-by", data: ["n": "1"])
            let chosen = AccessKey()
            let sealer = ClientKeys.generate().encryptionKey
            let forged: [String: Any] = [
                "eak": chosen.sealed(to: writerConfiguration.keys.encryptionKey.publicKey, by: sealer).wireFormat,
                "authorizer_id": UUID().uuidString.lowercased(),
                "authorizer_public_key": ["curve25519": sealer.publicKey.base64URLEncoded],
            ]
            let forgedJSON = try JSONSerialization.data(withJSONObject: forged)
            try await HostileServer.with(
                upstream: url,
                tamper: { path, _, response in
                    guard path.hasPrefix(E3DBPath.search.render()),
                        var body = try? JSONSerialization.jsonObject(with: response) as? [String: Any],
                        var results = body["results"] as? [[String: Any]]
                    else { return .answer(response) }
                    let inline = try? JSONSerialization.jsonObject(with: forgedJSON)
                    for index in results.indices { results[index]["access_key"] = inline }
                    body["results"] = results
                    return .answer((try? JSONSerialization.data(withJSONObject: body)) ?? response)
                }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                let writer = Client(configuration: through)
                // The query reads its record under the key the fetch proves, not the inline one.
                let page = try await writer.query(QueryParams(types: ["sealed-by"]))
                #expect(page.records.map { $0.data["n"] } == ["1"])
                _ = try await writer.write(type: "sealed-by", data: ["n": "2"])
            }
            let stored = try await SharedDatastoreRotationTests.stored("sealed-by", by: honest)
            #expect(stored.count == 2)
            for result in stored {
                let fields = try (result.recordData ?? [:]).values.map { try EncryptedField(wireFormat: $0) }
                #expect(!fields.contains { FieldCipher.isSealed($0, under: chosen) }, "sealed under the server's key")
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
                tamper: { path, _, response in
                    path == "/v1/storage/search" || path.hasSuffix("/rewrap") ? .cut : .answer(response)
                }
            ) { proxy in
                var through = writerConfiguration
                through.apiURL = proxy
                await #expect(throws: ClientError.self) {
                    try await Client(configuration: through).revoke(type: "linked", readerID: revoked.clientID)
                }
            }
            // Finishing through a server that drops the links, or alters them: nothing re-wrapped, the 5 left.
            let generation = "/v2/storage/access_keys/\(writerID)/\(writerID)/linked"
            for attack in Self.linkAttacks {
                try await HostileServer.with(
                    upstream: url,
                    tamper: Self.tamperingLinks(where: { $0 == generation || $0 == generation + "/links" }, attack)
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

    @Test(
        "a server that hides a rotation from a second device: within the check interval its writes stay under the old key until finished"
    )
    func hiddenRotation() async throws {
        try await Rotated.with(type: "hidden") { setup in
            // The proxy answers without X-Strongroom-Key-Generation: the phone never learns its key's generation,
            // so it sends no fence, and the server cannot tell its write is stale.
            let written = Mutex<UUID?>(nil)
            try await HostileServer.with(upstream: setup.url, tamper: { _, _, response in .answer(response) }) {
                proxy in
                var through = setup.writer
                through.apiURL = proxy
                let phone = Client(configuration: through)
                _ = try await phone.write(type: "hidden", data: ["n": "1"])  // its key cached, generation unknown
                try await setup.laptop.revoke(type: "hidden", readerID: setup.revoked.configuration.clientID)
                let id = try await phone.write(type: "hidden", data: ["n": "2"]).meta.recordID
                written.withLock { $0 = id }
            }
            let stale = try #require(written.withLock { $0 })
            // Open to the revoked reader's old key (a Strongroom reader opens it through the link; an official SDK
            // could not), until the phone next asks the key log (hiddenRotationFound) or the writer finishes.
            #expect(try await setup.kept.read(recordID: stale).data["n"] == "2")
            #expect(try await setup.fields(of: stale).allSatisfy { FieldCipher.isSealed($0, under: setup.stolen) })
            // The writer's next finish (or rotation) re-wraps it: read by the remaining reader, closed to the old key.
            let report = try await setup.laptop.finishKeyRotation(type: "hidden")
            #expect(report.recordsRewrapped == 1 && report.recordsLeft == 0, "\(report)")
            #expect(try await setup.kept.read(recordID: stale).data["n"] == "2")
            #expect(try await setup.fields(of: stale).allSatisfy { !FieldCipher.isSealed($0, under: setup.stolen) })
        }
    }

    /// The writer's laptop and the reader `kept` share `type` with `revoked`; `revoked`'s key as it opened it, and a
    /// function reading a record's sealed fields.
    struct Rotated {
        let url: URL
        let writer: Client.Configuration
        let laptop: Client
        let kept: Client
        let revoked: Client
        let stolen: AccessKey

        func fields(of id: UUID) async throws -> [EncryptedField] {
            let record = try await laptop.authenticated(
                .GET,
                "/v1/storage/records/\(id.uuidString.lowercased())",
                success: [200],
                as: RecordResponse.self
            )
            return try record.data.values.map { try EncryptedField(wireFormat: $0) }
        }

        /// The EAK path of `reader`'s key for `type`.
        func keyPath(of reader: Client, type: String) -> String {
            let writerID = writer.clientID.uuidString.lowercased()
            return "/v1/storage/access_keys/\(writerID)/\(writerID)/"
                + "\(reader.configuration.clientID.uuidString.lowercased())/\(type)"
        }

        /// The writer's generation leaves path for `type`.
        func generationsPath(type: String) -> String {
            let writerID = writer.clientID.uuidString.lowercased()
            return "/v2/keylog/generations/\(writerID)/\(writerID)/\(type)"
        }

        static func with(type: String, _ body: @escaping @Sendable (Rotated) async throws -> Void) async throws {
            try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
                server,
                _ in
                let url = try #require(URL(string: server.baseURL))
                let writer = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
                let laptop = Client(configuration: writer)
                let kept = Client(
                    configuration: try await Client.register(token: "hostile", clientName: "kept", apiURL: url)
                )
                let revoked = Client(
                    configuration: try await Client.register(token: "hostile", clientName: "revoked", apiURL: url)
                )
                _ = try await laptop.write(type: type, data: ["n": "0"])
                for reader in [kept, revoked] {
                    try await laptop.share(type: type, readerID: reader.configuration.clientID)
                }
                let writerID = writer.clientID.uuidString.lowercased()
                let readerID = revoked.configuration.clientID.uuidString.lowercased()
                let eak = try await revoked.authenticated(
                    .GET,
                    "/v1/storage/access_keys/\(writerID)/\(writerID)/\(readerID)/\(type)",
                    success: [200],
                    as: AccessKeyResponse.self
                )
                let stolen = try EncryptedAccessKey(wireFormat: eak.eak).open(
                    authorizerPublicKey: try EncryptionPublicKey(
                        base64URLEncoded: eak.authorizerPublicKey.curve25519 ?? ""
                    ),
                    readerPrivateKey: revoked.configuration.keys.encryptionKey
                )
                try await body(
                    Rotated(url: url, writer: writer, laptop: laptop, kept: kept, revoked: revoked, stolen: stolen)
                )
            }
        }
    }

    /// A proxy that serves the first answer it saw for each path in `replayed` ever after (the pre-rotation EAK),
    /// and, when `hideLeaves`, answers the generation leaves of `type` with none.
    static func replaying(_ replayed: Set<String>, hideLeavesAt leaves: String?) -> HostileServer.Tamper {
        let first = Mutex<[String: Data]>([:])
        return { path, _, response in
            if path == leaves, var answer = try? JSONDecoder().decode(KeyGenerationLeavesResponse.self, from: response)
            {
                answer.leaves = []
                return .answer((try? JSONEncoder().encode(answer)) ?? response)
            }
            guard replayed.contains(path) else { return .answer(response) }
            return .answer(
                first.withLock { kept in
                    if kept[path] == nil { kept[path] = response }
                    return kept[path] ?? response
                }
            )
        }
    }

    @Test(
        "a second device checking the key log before each write finds the hidden rotation: its write is under the new key"
    )
    func hiddenRotationFound() async throws {
        try await Rotated.with(type: "found") { setup in
            // The proxy strips X-Strongroom-Key-Generation (no fence) but answers the key log honestly.
            try await HostileServer.with(upstream: setup.url, tamper: { _, _, response in .answer(response) }) {
                proxy in
                var through = setup.writer
                through.apiURL = proxy
                through.keyLog.generationCheckInterval = .zero
                let phone = Client(configuration: through)
                _ = try await phone.write(type: "found", data: ["n": "1"])  // its key cached and checked
                try await setup.laptop.revoke(type: "found", readerID: setup.revoked.configuration.clientID)
                // The cached key's successor leaf is in the log: dropped, the current key fetched, the write under it.
                let id = try await phone.write(type: "found", data: ["n": "2"]).meta.recordID
                #expect(try await setup.kept.read(recordID: id).data["n"] == "2")
                #expect(try await setup.fields(of: id).allSatisfy { !FieldCipher.isSealed($0, under: setup.stolen) })
            }
        }
    }

    @Test("a server serving the old key as current beside honest generation leaves: writer and reader refuse it")
    func replayedKey() async throws {
        try await Rotated.with(type: "replayed") { setup in
            let paths: Set<String> = [
                setup.keyPath(of: setup.laptop, type: "replayed"), setup.keyPath(of: setup.kept, type: "replayed"),
            ]
            try await HostileServer.with(
                upstream: setup.url,
                tamper: Self.replaying(paths, hideLeavesAt: nil)
            ) { proxy in
                var phoneConfiguration = setup.writer
                phoneConfiguration.apiURL = proxy
                var keptConfiguration = setup.kept.configuration
                keptConfiguration.apiURL = proxy
                // Both keys fetched (and kept by the proxy) before the rotation.
                _ = try await Client(configuration: phoneConfiguration).write(type: "replayed", data: ["n": "1"])
                let first = try await setup.laptop.write(type: "replayed", data: ["n": "first"]).meta.recordID
                _ = try await Client(configuration: keptConfiguration).read(recordID: first)
                try await setup.laptop.revoke(type: "replayed", readerID: setup.revoked.configuration.clientID)
                let after = try await setup.laptop.write(type: "replayed", data: ["n": "after"]).meta.recordID
                // A fresh process of each, served the old key: the log's leaf supersedes it.
                let refused = await #expect(throws: ClientError.self) {
                    _ = try await Client(configuration: phoneConfiguration).write(type: "replayed", data: ["n": "2"])
                }
                #expect(refused?.code == .keyWithheld, "\(String(describing: refused))")
                let unread = await #expect(throws: ClientError.self) {
                    _ = try await Client(configuration: keptConfiguration).read(recordID: after)
                }
                #expect(unread?.code == .keyWithheld, "\(String(describing: unread))")
            }
        }
    }

    @Test("a server serving the old key and leaving its generation leaves out: the device's full scan catches it")
    func withheldRotation() async throws {
        try await Rotated.with(type: "withheld") { setup in
            let tamper = Self.replaying(
                [setup.keyPath(of: setup.laptop, type: "withheld")],
                hideLeavesAt: setup.generationsPath(type: "withheld")
            )
            try await HostileServer.with(upstream: setup.url, tamper: tamper) { proxy in
                var through = setup.writer
                through.apiURL = proxy
                // The old key, fetched through the proxy, which keeps it.
                _ = try await Client(configuration: through).write(type: "withheld", data: ["n": "1"])
                try await setup.laptop.revoke(type: "withheld", readerID: setup.revoked.configuration.clientID)
                // A fresh process served the old key, the leaf that supersedes it left out: its write goes through
                // under the old key — withheld from the remaining reader, open to the revoked one.
                let phone = Client(configuration: through)
                let stale = try await phone.write(type: "withheld", data: ["n": "2"]).meta.recordID
                #expect(try await setup.fields(of: stale).allSatisfy { FieldCipher.isSealed($0, under: setup.stolen) })
                // Its full scan of the log finds the leaf; the key is dropped, and served again it is refused.
                let report = try await phone.monitorKeyLog()
                #expect(report.supersededKeys == 1, "\(report)")
                let refused = await #expect(throws: ClientError.self) {
                    _ = try await phone.write(type: "withheld", data: ["n": "3"])
                }
                #expect(refused?.code == .keyWithheld, "\(String(describing: refused))")
            }
            // The writer's next finish re-wraps what the device wrote meanwhile.
            let report = try await setup.laptop.finishKeyRotation(type: "withheld")
            #expect(report.recordsRewrapped == 1 && report.recordsLeft == 0, "\(report)")
        }
    }

    @Test(
        "a server answering the bulk re-wrap without storing it: records left under the old key (read through the link), never disclosed; a finish re-wraps them"
    )
    func unstoredRewrap() async throws {
        try await Rotated.with(type: "unstored") { setup in
            var written: [UUID] = []
            for index in 1...4 {
                written.append(try await setup.laptop.write(type: "unstored", data: ["n": "\(index)"]).meta.recordID)
            }
            let writerID = setup.writer.clientID.uuidString.lowercased()
            let rewrap = "/v2/storage/access_keys/\(writerID)/\(writerID)/unstored/rewrap"
            // Every record of every page "re-wrapped", at a made-up version; nothing reaches the server.
            let intercept: HostileServer.Intercept = { method, path, body in
                guard method == "POST", path == rewrap,
                    let request = try? JSONDecoder().decode(RecordRewrapRequest.self, from: body)
                else { return nil }
                let results = request.records.map {
                    RecordRewrapResponse.Result(recordID: $0.recordID, outcome: "rewrapped", version: UUID().uuidString)
                }
                return try? JSONEncoder().encode(RecordRewrapResponse(results: results))
            }
            try await HostileServer.with(
                upstream: setup.url,
                intercept: intercept,
                tamper: { _, _, response in .answer(response) }
            ) { proxy in
                var through = setup.writer
                through.apiURL = proxy
                // The writer believes the answer: every record reported done.
                let report = try await Client(configuration: through).revoke(
                    type: "unstored",
                    readerID: setup.revoked.configuration.clientID
                )
                #expect(report?.recordsRewrapped == 5 && report?.recordsLeft == 0, "\(String(describing: report))")
            }
            // Nothing was stored: the records are still under the old key, which the remaining reader reaches only
            // through the link (an official SDK could not: withheld from it), and which the revoked one held before
            // its revocation (nothing new disclosed).
            for (index, id) in written.enumerated() {
                #expect(try await setup.kept.read(recordID: id).data["n"] == "\(index + 1)")
                #expect(try await setup.fields(of: id).allSatisfy { FieldCipher.isSealed($0, under: setup.stolen) })
            }
            // The honest server finishes it: every record re-wrapped, the remaining reader reads them all.
            let report = try await setup.laptop.finishKeyRotation(type: "unstored")
            #expect(report.recordsRewrapped == 5 && report.recordsLeft == 0, "\(report)")
            for (index, id) in written.enumerated() {
                #expect(try await setup.kept.read(recordID: id).data["n"] == "\(index + 1)")
            }
        }
    }

    @Test("a server withholding or altering a rotated shared datastore's links: a member's sync stops, nothing applied")
    func sharedDatastoreLinks() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            func client(_ name: String) async throws -> Client {
                Client(configuration: try await Client.register(token: "hostile", clientName: name, apiURL: url))
            }
            let (ownerClient, memberClient, revokedClient) = (
                try await client("owner"), try await client("member"), try await client("revoked")
            )
            try await withTemporaryDirectory { folder in
                func store(_ name: String) async throws -> Datastore {
                    try await DatastoreManager(directory: folder.appending(path: name))
                        .datastore(named: "team", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                }
                let owned = try await store("owner")
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                _ = try await owned.createDocument(id: "before", body: ["n": 1])
                try await owner.replicate()
                try await owner.share(with: memberClient.configuration.clientID, access: .read)
                try await owner.share(with: revokedClient.configuration.clientID, access: .read)
                #expect(try await owner.revoke(revokedClient.configuration.clientID)?.generation == 2)
                _ = try await owned.createDocument(id: "after", body: ["n": 2])
                try await owner.replicate()

                // The member's first sync goes through a server that empties the links, then one that alters them:
                // the datastore's tags come from its first key generation, which it cannot reach.
                let shared = try await owner.sharedDatastore()
                // A datastore remembers the server it replicates with: one for each proxy, one for the honest server.
                for (index, attack) in Self.linkAttacks.enumerated() {
                    let attacked = try await store("attacked-\(index)")
                    try await HostileServer.with(
                        upstream: url,
                        tamper: Self.tamperingLinks(where: { $0.hasSuffix("/links") }, attack)
                    ) { proxy in
                        var through = memberClient.configuration
                        through.apiURL = proxy
                        let member = Replicator(
                            datastore: attacked,
                            sharedDatastore: shared,
                            client: Client(configuration: through)
                        )
                        let error = await #expect(throws: ClientError.self) { try await member.replicate() }
                        #expect(error?.code == .keyWithheld, "\(String(describing: error))")
                    }
                    #expect(try await attacked.documentCount() == 0)
                    await attacked.close()
                }
                let copy = try await store("member")
                // The honest server's links: both documents, the one written before the rotation and the one after.
                try await Replicator(datastore: copy, sharedDatastore: shared, client: memberClient).replicate()
                #expect(try await copy.document(id: "before").body == ["n": 1])
                #expect(try await copy.document(id: "after").body == ["n": 2])
                for opened in [owned, copy] { await opened.close() }
            }
        }
    }
}
