// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// Every authenticated endpoint refuses missing, bad, expired and tampered credentials with 401 and a JSON
/// `{"error"}` body, and never returns data to a client that may not read it.
@Suite struct AuthorizationTests {
    static let someID = "0e8eb8c6-839f-46ca-9843-801c539e490f"
    static let endpoints: [(HTTPRequest.Method, String)] = [
        (.get, "/v1/storage/clients/\(someID)"),
        (.get, "/v1/storage/access_keys/\(someID)/\(someID)/\(someID)/t"),
        (.put, "/v1/storage/access_keys/\(someID)/\(someID)/\(someID)/t"),
        (.delete, "/v1/storage/access_keys/\(someID)/\(someID)/\(someID)/t"),
        (.post, "/v1/storage/records"),
        (.get, "/v1/storage/records/\(someID)"),
        (.put, "/v1/storage/records/safe/\(someID)/v"),
        (.delete, "/v1/storage/records/safe/\(someID)/v"),
        (.post, "/v1/storage/search"),
        (.put, "/v1/storage/policy/\(someID)/\(someID)/\(someID)/t"),
        (.delete, "/v1/storage/policy/\(someID)/\(someID)/\(someID)"),
        (.get, "/v1/storage/policy/outgoing"),
        (.get, "/v1/storage/policy/incoming"),
        (.get, "/v1/storage/policy/proxies"),
        (.get, "/v1/storage/policy/granted"),
        (.post, "/v1/storage/files"),
        (.patch, "/v1/storage/files/\(someID)"),
        (.get, "/v1/storage/files/\(someID)"),
        (.post, "/v2/search"),
        (.post, "/v2/storage/notes"),
        (.get, "/v2/storage/notes?note_id=\(someID)"),
    ]

    @Test(
        "no credentials, a forged token, or a foreign scheme → 401 JSON on every endpoint",
        arguments: TestEngine.available
    )
    func unauthenticated(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            for (method, path) in Self.endpoints {
                for authorization in [nil, "Bearer nonsense", "Bearer sr1.AAAA.BBBB", "Basic YTpi", "Token x"] {
                    let response = try await api.request(method, path, authorization: authorization, body: "{}")
                    #expect(response.status == .unauthorized, "\(method) \(path) with \(authorization ?? "nothing")")
                    let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                    #expect(error != nil, "\(method) \(path): body is not {\"error\"}")
                }
            }
        }
    }

    @Test("an expired token → 401", arguments: TestEngine.available)
    func expiredToken(engine: TestEngine) async throws {
        let clock = AdvancingWallClock()
        try await TestServer.run(engine: engine, tokenLifetime: .seconds(3600), clock: clock) { api in
            let client = try await api.register()
            clock.advance(by: 3600 + 120)
            let response = try await api.request(
                .get,
                "/v1/storage/policy/outgoing",
                authorization: "Bearer \(client.token)"
            )
            #expect(response.status == .unauthorized)
        }
    }

    @Test(
        "a valid TSV1 signature is accepted once; tampered, foreign-key and replayed ones are refused",
        arguments: TestEngine.available
    )
    func tsv1(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let path = "/v1/storage/policy/outgoing"
            let header = TSV1.authorization(
                for: .init(method: "GET", path: path),
                clientID: client.clientID,
                signingKey: client.keys.signingKey
            )
            #expect(try await api.request(.get, path, authorization: header).status == .ok)
            #expect(try await api.request(.get, path, authorization: header).status == .unauthorized, "replay")
            var tampered = Array(
                TSV1.authorization(
                    for: .init(method: "GET", path: path),
                    clientID: client.clientID,
                    signingKey: client.keys.signingKey
                )
            )
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
            #expect(try await api.request(.get, path, authorization: String(tampered)).status == .unauthorized)
            let otherKey = TSV1.authorization(
                for: .init(method: "GET", path: path),
                clientID: client.clientID,
                signingKey: SigningPrivateKey()
            )
            #expect(try await api.request(.get, path, authorization: otherKey).status == .unauthorized)
            let wrongPath = TSV1.authorization(
                for: .init(method: "GET", path: "/v1/storage/policy/incoming"),
                clientID: client.clientID,
                signingKey: client.keys.signingKey
            )
            #expect(try await api.request(.get, path, authorization: wrongPath).status == .unauthorized)
        }
    }

    @Test(
        "another client's record, a revoked reader and an authorizer without read get no data",
        arguments: TestEngine.available
    )
    func accessControl(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let stranger = try await api.register("stranger")
            let authorizer = try await api.register("authorizer")
            let accessKey = AccessKey()
            let record = try await api.writeRecord(
                as: writer,
                type: "secret",
                fields: ["f": "canary"],
                accessKey: accessKey
            )
            let path = "/v1/storage/records/\(record.meta.recordID)"

            #expect(try await api.request(.get, path, authorization: "Bearer \(stranger.token)").status == .forbidden)
            try await api.share("secret", from: writer, to: reader, accessKey: accessKey)
            let shared = try await api.request(.get, path, authorization: "Bearer \(reader.token)")
            #expect(shared.status == .ok)

            // Revoke: deny read, delete the EAK; the reader still holds the AK but the server refuses the record.
            let policyPath = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/secret"
            let deny = try await api.request(
                .put,
                policyPath,
                token: writer.token,
                json: PolicyRequest(deny: [.init(read: [:])])
            )
            #expect(deny.status == .created)
            #expect(try await api.request(.get, path, authorization: "Bearer \(reader.token)").status == .forbidden)

            // An authorizer may share on the writer's behalf, but reading needs its own read grant.
            let grantPath = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(authorizer.clientID)/secret"
            let grant = PolicyRequest(allow: [.init(authorizer: [:])])
            #expect(try await api.request(.put, grantPath, token: writer.token, json: grant).status == .created)
            #expect(try await api.request(.get, path, authorization: "Bearer \(authorizer.token)").status == .forbidden)

            // Only the reader fetches its EAK; a stranger cannot set policies for someone else's data.
            let eakPath = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/secret"
            #expect(
                try await api.request(.get, eakPath, authorization: "Bearer \(stranger.token)").status == .forbidden
            )
            let strangerPolicy = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(stranger.clientID)/secret"
            let allow = PolicyRequest(allow: [.init(read: [:])])
            #expect(
                try await api.request(.put, strangerPolicy, token: stranger.token, json: allow).status == .forbidden
            )

            // Searches never return another writer's records unless shared.
            let search = try await api.request(
                .post,
                "/v1/storage/search",
                token: stranger.token,
                json: SearchRequest(includeData: true, writerIDs: [writer.clientID], includeAllWriters: true)
            )
            let found = try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: search.body))
            #expect(found.results.isEmpty)
        }
    }

    @Test(
        "sharing twice succeeds: a reader's EAK slot PUT again is replaced (201); the writer's own slot keeps 409",
        arguments: TestEngine.available
    )
    func shareTwice(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register()
            let reader = try await api.register()
            // Any ciphertext.nonce pair in base64url passes the server's shape check; the server never opens it.
            func eak(_ byte: UInt8) -> AccessKeyPutRequest {
                let text =
                    Base64URL.encode(Array(repeating: byte, count: 48)) + "."
                    + Base64URL.encode(
                        Array(repeating: byte, count: 24)
                    )
                return AccessKeyPutRequest(eak: text)
            }
            let prefix = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)"
            let own = "\(prefix)/\(writer.clientID)/twice"
            let shared = "\(prefix)/\(reader.clientID)/twice"
            #expect(try await api.request(.put, own, token: writer.token, json: eak(1)).status == .created)
            #expect(try await api.request(.put, own, token: writer.token, json: eak(2)).status == .conflict)
            #expect(try await api.request(.put, shared, token: writer.token, json: eak(3)).status == .created)
            #expect(try await api.request(.put, shared, token: writer.token, json: eak(4)).status == .created)
            // The reader gets the latest one; the writer's own is unchanged.
            let readerCopy = try await api.request(.get, shared, authorization: "Bearer \(reader.token)")
            #expect(String(buffer: readerCopy.body).contains(eak(4).eak.prefix(20)))
            let ownCopy = try await api.request(.get, own, authorization: "Bearer \(writer.token)")
            #expect(String(buffer: ownCopy.body).contains(eak(1).eak.prefix(20)))
            // The reader itself may not overwrite its slot.
            #expect(try await api.request(.put, shared, token: reader.token, json: eak(5)).status == .forbidden)
        }
    }

    @Test("notes refuse bearer tokens: they take TSV1 only", arguments: TestEngine.available)
    func notesNeedTSV1(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let response = try await api.request(
                .get,
                "/v2/storage/notes?note_id=\(Self.someID)",
                authorization: "Bearer \(client.token)"
            )
            #expect(response.status == .unauthorized)
        }
    }

    @Test(
        "presigned blob URLs refuse a tampered signature, another method, another blob and an expiry in the past",
        arguments: TestEngine.available
    )
    func presignedURLs(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let pending = try await api.request(
                .post,
                "/v1/storage/files",
                token: client.token,
                json: FileWriteRequest(
                    meta: .init(
                        writerID: nil,
                        userID: nil,
                        type: "f",
                        plain: nil,
                        fileMeta: FileMeta(
                            checksum: "1B2M2Y8AsgTpgAmY7PhCfg==",
                            compression: "raw",
                            size: 1,
                            fileName: "../../etc/passwd"
                        )
                    )
                )
            )
            #expect(pending.status == .accepted)
            let upload = try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
            let url = try #require(URLComponents(string: upload.fileURL))
            let query = url.percentEncodedQuery ?? ""
            let signature = try #require(url.queryItems?.first { $0.name == "signature" }?.value)
            let flipped = signature.first == "A" ? "B" + signature.dropFirst() : "A" + signature.dropFirst()
            let cases: [(HTTPRequest.Method, String)] = [
                (.put, url.path + "?" + query.replacingOccurrences(of: signature, with: flipped)),
                (.get, url.path + "?" + query),
                (.put, "/v1/storage/blobs/\(Self.someID)?" + query),
                (.put, url.path + "?" + query.replacingOccurrences(of: "expires=", with: "expires=1")),
                (.put, url.path),
            ]
            for (method, uri) in cases {
                let response = try await api.client.execute(uri: uri, method: method, body: ByteBuffer(string: "x"))
                #expect(response.status == .forbidden, "\(method) \(uri)")
            }
            // The file name is metadata only: nothing outside the blob folder was written.
            let entries = try FileManager.default.subpathsOfDirectory(atPath: api.dataDirectory.path)
            #expect(!entries.contains { $0.contains("passwd") || $0.contains("..") })
        }
    }
}
