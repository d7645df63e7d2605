// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}` and `POST …/rotate`: a rotation commits whole or not at all,
/// and only the writer makes one (docs/design/Revocation.md).
@Suite struct AccessKeyRotationTests {
    static let type = "rotated"

    static func generation(
        _ api: API,
        _ writer: RegisteredClient,
        as caller: RegisteredClient? = nil
    ) async throws -> AccessKeyGenerationResponse {
        let path = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(type)"
        let response = try await api.request(.get, path, authorization: "Bearer \((caller ?? writer).token)")
        try #require(response.status == .ok, "\(response.status)")
        return try JSONDecoder().decode(AccessKeyGenerationResponse.self, from: Data(buffer: response.body))
    }

    static func rotate(
        _ api: API,
        as caller: RegisteredClient,
        writer: RegisteredClient,
        _ body: AccessKeyRotationRequest
    ) async throws -> Int {
        let path = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(type)/rotate"
        return Int(try await api.request(.post, path, token: caller.token, json: body).status.code)
    }

    /// Stores `key` sealed to `reader` as the writer's EAK of ``type`` (no policy); the status.
    static func putEAK(
        _ api: API,
        _ key: AccessKey,
        to reader: RegisteredClient,
        by writer: RegisteredClient
    ) async throws -> HTTPResponse.Status {
        let eak = key.sealed(to: reader.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
        let path = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/\(type)"
        return try await api.request(.put, path, token: writer.token, json: AccessKeyPutRequest(eak: eak.wireFormat))
            .status
    }

    static func eak(_ key: AccessKey, to reader: RegisteredClient, by writer: RegisteredClient) -> ReaderAccessKey {
        ReaderAccessKey(
            readerID: reader.clientID,
            eak: key.sealed(to: reader.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey).wireFormat
        )
    }

    @Test(
        "a rotation replaces every remaining EAK, deletes the revoked one, denies its reads and bumps the generation at once",
        arguments: TestEngine.available
    )
    func rotation(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let kept = try await api.register("kept")
            let revoked = try await api.register("revoked")
            let first = AccessKey()
            let record = try await api.writeRecord(as: writer, type: Self.type, fields: ["n": "1"], accessKey: first)
            for reader in [writer, kept] {
                #expect(try await Self.putEAK(api, first, to: reader, by: writer) == .created)
            }
            try await api.share(Self.type, from: writer, to: revoked, accessKey: first)
            let before = try await Self.generation(api, writer)
            #expect(before.generation == 1)
            #expect(before.readers == [writer.clientID, kept.clientID, revoked.clientID].sorted())

            let second = AccessKey()
            let eaks = [Self.eak(second, to: writer, by: writer), Self.eak(second, to: kept, by: writer)]
            // Nothing changes on a refusal: a reader left out, a stale generation, a caller who is not the writer.
            let missing = AccessKeyRotationRequest(generation: 2, eaks: [eaks[0]], revoke: [revoked.clientID])
            #expect(try await Self.rotate(api, as: writer, writer: writer, missing) == 409)
            let stale = AccessKeyRotationRequest(generation: 3, eaks: eaks, revoke: [revoked.clientID])
            #expect(try await Self.rotate(api, as: writer, writer: writer, stale) == 409)
            let good = AccessKeyRotationRequest(generation: 2, eaks: eaks, revoke: [revoked.clientID])
            #expect(try await Self.rotate(api, as: kept, writer: writer, good) == 403)
            let writerLess = AccessKeyRotationRequest(generation: 2, eaks: [eaks[1]], revoke: [revoked.clientID])
            #expect(try await Self.rotate(api, as: writer, writer: writer, writerLess) == 400)
            let bad = AccessKeyRotationRequest(
                generation: 2,
                eaks: [eaks[0], ReaderAccessKey(readerID: kept.clientID, eak: "not-an-eak")],
                revoke: []
            )
            #expect(try await Self.rotate(api, as: writer, writer: writer, bad) == 400)
            var badLink = good
            badLink.previous = "not-a-link"
            #expect(try await Self.rotate(api, as: writer, writer: writer, badLink) == 400)
            #expect(try await Self.generation(api, writer) == before)
            #expect(before.links == [])

            // The link (the first key sealed under the second) is kept with generation 2 and served back.
            var linked = good
            linked.previous = second.sealingLink(to: first).wireFormat
            let logged = try await KeyLogLeafCount.of(api, as: writer)
            #expect(try await Self.rotate(api, as: writer, writer: writer, linked) == 201)
            let after = try await Self.generation(api, writer)
            #expect(after.generation == 2 && after.readers == [writer.clientID, kept.clientID].sorted())
            #expect(after.links == [AccessKeyLink(generation: 2, previous: try #require(linked.previous))])
            let link = try EncryptedAccessKey(wireFormat: try #require(after.links?.first?.previous))
            #expect(try second.openLink(link) == first)
            #expect(try await KeyLogLeafCount.of(api, as: writer) == logged + 1, "one revocation leaf")
            #expect(try await Self.rotate(api, as: writer, writer: writer, good) == 409, "generation 2 is taken")

            // The kept reader's EAK opens the new key; the revoked reader has none and may not read.
            let keyPath = { (reader: RegisteredClient) in
                "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/\(Self.type)"
            }
            let keptEAK = try await api.request(.get, keyPath(kept), authorization: "Bearer \(kept.token)")
            let response = try JSONDecoder().decode(AccessKeyResponse.self, from: Data(buffer: keptEAK.body))
            let opened = try EncryptedAccessKey(wireFormat: response.eak).open(
                authorizerPublicKey: writer.keys.encryptionKey.publicKey,
                readerPrivateKey: kept.keys.encryptionKey
            )
            #expect(opened == second)
            let gone = try await api.request(.get, keyPath(revoked), authorization: "Bearer \(revoked.token)")
            #expect(gone.status == .notFound)
            let read = try await api.request(
                .get,
                "/v1/storage/records/\(record.meta.recordID)",
                authorization: "Bearer \(revoked.token)"
            )
            #expect(read.status == .forbidden)
        }
    }

    @Test(
        "an authorizer rotates the writer's key to revoke a reader, but never the writer, itself or another authorizer",
        arguments: TestEngine.available
    )
    func authorizerRotation(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let authorizer = try await api.register("authorizer")
            let other = try await api.register("other-authorizer")
            let kept = try await api.register("kept")
            let revoked = try await api.register("revoked")
            let first = AccessKey()
            #expect(try await Self.putEAK(api, first, to: writer, by: writer) == .created)
            for delegate in [authorizer, other] {
                #expect(try await Self.putEAK(api, first, to: delegate, by: writer) == .created)
                let path = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(delegate.clientID)/\(Self.type)"
                let grant = PolicyRequest(allow: [.init(authorizer: [:])])
                #expect(try await api.request(.put, path, token: writer.token, json: grant).status == .created)
            }
            for reader in [kept, revoked] { try await api.share(Self.type, from: writer, to: reader, accessKey: first) }
            // A reader is no rotator: it neither reads the holders nor rotates.
            let asReader = try await api.request(
                .get,
                "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(Self.type)",
                authorization: "Bearer \(kept.token)"
            )
            #expect(asReader.status == .forbidden)
            let before = try await Self.generation(api, writer, as: authorizer)
            #expect(before.generation == 1 && before.readers.count == 5)

            let second = AccessKey()
            let everyone = [writer, authorizer, other, kept, revoked]
            let sealed = { (readers: [RegisteredClient]) in readers.map { Self.eak(second, to: $0, by: authorizer) } }
            let refused: [(revoked: RegisteredClient, status: Int)] = [(other, 403), (authorizer, 403), (writer, 400)]
            for (target, status) in refused {
                let request = AccessKeyRotationRequest(
                    generation: 2,
                    eaks: sealed(everyone.filter { $0.clientID != target.clientID }),
                    revoke: [target.clientID]
                )
                #expect(try await Self.rotate(api, as: authorizer, writer: writer, request) == status)
                #expect(try await Self.rotate(api, as: kept, writer: writer, request) == 403)
            }
            #expect(try await Self.generation(api, writer) == before)

            var good = AccessKeyRotationRequest(
                generation: 2,
                eaks: sealed([writer, authorizer, other, kept]),
                revoke: [revoked.clientID]
            )
            good.previous = second.sealingLink(to: first).wireFormat
            #expect(try await Self.rotate(api, as: authorizer, writer: writer, good) == 201)
            let after = try await Self.generation(api, writer)
            #expect(after.generation == 2 && !after.readers.contains(revoked.clientID) && after.readers.count == 4)
            // The writer's own EAK now comes from the authorizer and opens to the new key.
            let path = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(writer.clientID)/\(Self.type)"
            let served = try await api.request(.get, path, authorization: "Bearer \(writer.token)")
            let response = try JSONDecoder().decode(AccessKeyResponse.self, from: Data(buffer: served.body))
            let opened = try EncryptedAccessKey(wireFormat: response.eak).open(
                authorizerPublicKey: authorizer.keys.encryptionKey.publicKey,
                readerPrivateKey: writer.keys.encryptionKey
            )
            #expect(opened == second)
            // Re-wrapping the writer's records stays the writer's.
            let rewrap = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(Self.type)/rewrap"
            let body = RecordRewrapRequest(generation: 2, records: [])
            #expect(try await api.request(.post, rewrap, token: authorizer.token, json: body).status == .forbidden)
        }
    }

    @Test(
        "links between generations: the writer and EAK holders page them newest first; anyone else gets 404",
        arguments: TestEngine.available
    )
    func links(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let kept = try await api.register("kept")
            let revoked = try await api.register("revoked")
            let stranger = try await api.register("stranger")
            var keys = [AccessKey()]
            for reader in [writer, kept] {
                #expect(try await Self.putEAK(api, keys[0], to: reader, by: writer) == .created)
            }
            try await api.share(Self.type, from: writer, to: revoked, accessKey: keys[0])
            let links = { (caller: RegisteredClient, query: String) in
                let path = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(Self.type)/links\(query)"
                return try await api.request(.get, path, authorization: "Bearer \(caller.token)")
            }
            let never = try JSONDecoder().decode(
                AccessKeyLinksResponse.self,
                from: Data(buffer: try await links(kept, "").body)
            )
            #expect(never == AccessKeyLinksResponse(generation: 1, links: []))

            // 66 rotations: 67 generations, one more page of links than an answer carries.
            for generation in 2...67 {
                let next = AccessKey()
                let request = AccessKeyRotationRequest(
                    generation: generation,
                    eaks: [Self.eak(next, to: writer, by: writer), Self.eak(next, to: kept, by: writer)],
                    revoke: generation == 2 ? [revoked.clientID] : [],
                    previous: next.sealingLink(to: keys[keys.count - 1]).wireFormat
                )
                #expect(try await Self.rotate(api, as: writer, writer: writer, request) == 201)
                keys.append(next)
            }
            for caller in [writer, kept] {
                let first = try JSONDecoder().decode(
                    AccessKeyLinksResponse.self,
                    from: Data(buffer: try await links(caller, "").body)
                )
                #expect(first.generation == 67 && first.links.map(\.generation) == Array((4...67).reversed()))
                let second = try JSONDecoder().decode(
                    AccessKeyLinksResponse.self,
                    from: Data(buffer: try await links(caller, "?below=4").body)
                )
                #expect(second.generation == 67 && second.links.map(\.generation) == [3, 2])
                // Each opens, under its generation's key, to the key before it.
                for link in first.links + second.links {
                    let opened = try keys[link.generation - 1].openLink(EncryptedAccessKey(wireFormat: link.previous))
                    #expect(opened == keys[link.generation - 2])
                }
                let none = try JSONDecoder().decode(
                    AccessKeyLinksResponse.self,
                    from: Data(buffer: try await links(caller, "?below=2").body)
                )
                #expect(none.links.isEmpty)
            }
            // The revoked reader and a stranger hold no EAK: 404, as for a type that does not exist.
            for caller in [revoked, stranger] { #expect(try await links(caller, "").status == .notFound) }
            for query in ["?below=1", "?below=", "?below=x", "?below=-3", "?below=99999999999"] {
                #expect(try await links(kept, query).status == .badRequest, "\(query)")
            }
        }
    }
}

/// The key log's size, from its checkpoint (the second line of the note).
enum KeyLogLeafCount {
    static func of(_ api: API, as client: RegisteredClient) async throws -> UInt64 {
        let response = try await api.request(.get, "/v2/keylog/checkpoint")
        let checkpoint = try JSONDecoder().decode(KeyLogCheckpointResponse.self, from: Data(buffer: response.body))
        let lines = checkpoint.checkpoint.split(separator: "\n")
        return try #require(lines.count > 1 ? UInt64(lines[1]) : nil, "\(checkpoint.checkpoint)")
    }
}
