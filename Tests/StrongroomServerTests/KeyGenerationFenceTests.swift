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

/// The fence on writes under an old key generation (`X-Strongroom-Key-Generation`, docs/design/Revocation.md): a
/// record write, an update or a share sealed under a generation the type has rotated past is refused with 409
/// `stale_key_generation` and the current generation, and nothing is stored; without the header (every official
/// SDK) the server behaves as before.
@Suite struct KeyGenerationFenceTests {
    static let type = AccessKeyRotationTests.type
    static let field = HTTPField.Name(StrongroomHeader.keyGeneration)!

    static func send(
        _ api: API,
        _ method: HTTPRequest.Method,
        _ path: String,
        as client: RegisteredClient,
        generation: String?,
        json: some Encodable
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(client.token)"]
        if let generation { headers[field] = generation }
        let body = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        return try await api.request(method, path, headers: headers, body: body)
    }

    static func write(_ key: AccessKey, by writer: RegisteredClient) -> RecordWriteRequest {
        RecordWriteRequest(
            meta: .init(writerID: writer.clientID, userID: writer.clientID, type: type, plain: [:]),
            data: FieldCipher.encrypt(fields: ["n": "1"], with: key)
        )
    }

    @Test(
        "a write, an update or a share under a rotated-past generation is refused; without the header, served as before",
        arguments: TestEngine.available
    )
    func fence(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let late = try await api.register("late")
            let first = AccessKey()
            func post(_ generation: String?, _ key: AccessKey) async throws -> TestResponse {
                try await Self.send(
                    api,
                    .post,
                    "/v1/storage/records",
                    as: writer,
                    generation: generation,
                    json: Self.write(key, by: writer)
                )
            }
            try await api.share(Self.type, from: writer, to: writer, accessKey: first)
            try await api.share(Self.type, from: writer, to: reader, accessKey: first)

            // An EAK's answer names the generation; a write naming it is served, a malformed one is 400.
            let ownPath =
                "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(writer.clientID)/\(Self.type)"
            let own = try await api.request(.get, ownPath, authorization: "Bearer \(writer.token)")
            #expect(own.headers[Self.field] == "1")
            let written = try await post("1", first)
            #expect(written.status == .created)
            let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: written.body))
            for malformed in ["0", "-1", "+1", "1.0", "1 1", "2147483648", "99999999999", "x"] {
                let answer = try await post(malformed, first)
                #expect(answer.status == .badRequest, "\(malformed)")
            }

            // Rotation to generation 2.
            let second = AccessKey()
            let rotation = AccessKeyRotationRequest(
                generation: 2,
                eaks: [
                    AccessKeyRotationTests.eak(second, to: writer, by: writer),
                    AccessKeyRotationTests.eak(second, to: reader, by: writer),
                ],
                revoke: [],
                previous: second.sealingLink(to: first).wireFormat
            )
            #expect(try await AccessKeyRotationTests.rotate(api, as: writer, writer: writer, rotation) == 201)
            #expect(
                try await api.request(.get, ownPath, authorization: "Bearer \(writer.token)").headers[Self.field] == "2"
            )

            // Generation 1 is refused for a new record, an update and a share, with the current generation named.
            let count = try await Self.count(api, writer)
            let stale = try await post("1", first)
            #expect(stale.status == .conflict && stale.headers[Self.field] == "2")
            let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: stale.body))
            #expect(body.code == "stale_key_generation", "\(body)")
            #expect(try await Self.count(api, writer) == count, "nothing stored")
            let updatePath = "/v1/storage/records/safe/\(record.meta.recordID)/\(record.meta.version)"
            let update = try await Self.send(
                api,
                .put,
                updatePath,
                as: writer,
                generation: "1",
                json: Self.write(first, by: writer)
            )
            #expect(update.status == .conflict && update.headers[Self.field] == "2")
            let latePath = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(late.clientID)/\(Self.type)"
            let oldEAK = first.sealed(to: late.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
            let share = try await Self.send(
                api,
                .put,
                latePath,
                as: writer,
                generation: "1",
                json: AccessKeyPutRequest(eak: oldEAK.wireFormat)
            )
            #expect(share.status == .conflict && share.headers[Self.field] == "2")
            #expect(try await api.request(.get, latePath, authorization: "Bearer \(late.token)").status == .notFound)

            // Generation 2 is served; a future one is refused too.
            let current = try await Self.send(
                api,
                .put,
                updatePath,
                as: writer,
                generation: "2",
                json: Self.write(second, by: writer)
            )
            #expect(current.status == .ok)
            let future = try await post("3", second)
            #expect(future.status == .conflict)
            let newEAK = second.sealed(to: late.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
            let shared = try await Self.send(
                api,
                .put,
                latePath,
                as: writer,
                generation: "2",
                json: AccessKeyPutRequest(eak: newEAK.wireFormat)
            )
            #expect(shared.status == .created && shared.headers[Self.field] == "2")

            // Without the header (the official SDKs), a write is served whatever key it is under.
            let unfenced = try await post(nil, first)
            #expect(unfenced.status == .created)
        }
    }

    /// How many records of the type the writer has.
    static func count(_ api: API, _ writer: RegisteredClient) async throws -> Int {
        let query = SearchRequest(count: 1000, writerIDs: [writer.clientID], contentTypes: [type])
        let answer = try await api.request(.post, "/v1/storage/search", token: writer.token, json: query)
        return try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: answer.body)).results.count
    }
}
