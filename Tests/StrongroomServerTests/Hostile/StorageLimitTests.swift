// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCrypto
import StrongroomServer
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// What an account, or no account, can make the server keep: notes, nonces, pending files, names and listings are
/// all bounded.
@Suite struct StorageLimitTests {
    static func writeNote(
        _ api: API,
        writer: SigningPrivateKey,
        maxViews: String = "-1",
        name: String = ""
    )
        async throws -> TestResponse
    {
        try await api.request(
            .post,
            "/v2/storage/notes",
            authorization: HostileRequests.anonymousNoteHeader(writer: writer),
            body: HostileRequests.noteBody(writer: writer, maxViews: maxViews, idString: name)
        )
    }

    @Test(
        "anonymous notes: per-key and global quotas answer 429; used-up notes are deleted",
        arguments: TestEngine.available
    )
    func noteQuotas(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.notesPerKey = 2
        limits.notesTotal = 6  // anonymous notes take at most half: 3
        try await TestServer.run(engine: engine, limits: limits) { api in
            let writer = SigningPrivateKey()
            #expect(try await Self.writeNote(api, writer: writer).status == .created)
            #expect(try await Self.writeNote(api, writer: writer).status == .created)
            let third = try await Self.writeNote(api, writer: writer)
            #expect(third.status == .tooManyRequests)
            #expect(String(buffer: third.body).contains("quota_exceeded"))
            #expect(try await Self.writeNote(api, writer: SigningPrivateKey()).status == .created)
            let shared = try await Self.writeNote(api, writer: SigningPrivateKey())
            #expect(shared.status == .tooManyRequests, "anonymous notes' share")
        }
    }

    @Test("a note's last view deletes it: its name is free again", arguments: TestEngine.available)
    func usedUpNotes(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let recipient = SigningPrivateKey()
            let name = "once-\(UUID().uuidString)"
            func write() async throws -> TestResponse {
                let body = """
                    {"data": {"k": "v"}, "encrypted_access_key": "a.b",
                    "recipient_signing_key": "\(recipient.publicKey.base64URLEncoded)",
                    "writer_signing_key": "\(client.keys.signingKey.publicKey.base64URLEncoded)",
                    "writer_encryption_key": "\(client.keys.encryptionKey.publicKey.base64URLEncoded)",
                    "max_views": 1, "id_string": "\(name)"}
                    """
                let header = TSV1.authorization(
                    for: .init(method: "POST", path: "/v2/storage/notes"),
                    clientID: client.clientID,
                    signingKey: client.keys.signingKey
                )
                return try await api.request(.post, "/v2/storage/notes", authorization: header, body: body)
            }
            func read() async throws -> HTTPResponse.Status {
                let query = "id_string=\(name)"
                let header = TSV1.authorization(
                    for: .init(method: "GET", path: "/v2/storage/notes", query: query),
                    clientID: "",
                    signingKey: recipient
                )
                return try await api.request(.get, "/v2/storage/notes?\(query)", authorization: header).status
            }
            #expect(try await write().status == .created)
            #expect(try await write().status == .conflict, "the name is taken while the note lives")
            #expect(try await read() == .ok)
            #expect(try await read() == .notFound)
            #expect(try await write().status == .created, "the used-up note was deleted, so its name is free")
        }
    }

    @Test("TSV1 nonces are bounded and a refused request stores none", arguments: TestEngine.available)
    func nonces(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let key = SigningPrivateKey()
            let path = "/v1/storage/policy/outgoing"
            let long = TSV1.authorization(
                for: .init(method: "GET", path: path),
                clientID: "",
                signingKey: key,
                timestamp: Int64(Date().timeIntervalSince1970),
                nonce: String(repeating: "n", count: 65)
            )
            #expect(try await api.request(.get, path, authorization: long).status == .unauthorized)
            // An anonymous signature on a storage route is refused before its nonce is kept: sending it again is
            // refused for the same reason, not as a replay.
            let anonymous = TSV1.authorization(for: .init(method: "GET", path: path), clientID: "", signingKey: key)
            for _ in 0..<2 {
                let response = try await api.request(.get, path, authorization: anonymous)
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("registered client"))
            }
        }
    }

    @Test("file size, file names, types and client names are capped in bytes", arguments: TestEngine.available)
    func sizesAndNames(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let checksum = Data(repeating: 1, count: 16).base64EncodedString()
            func file(size: Int64, name: String? = nil, type: String = "f") async throws -> HTTPResponse.Status {
                let request = FileWriteRequest(
                    meta: .init(
                        writerID: client.clientID,
                        userID: client.clientID,
                        type: type,
                        plain: nil,
                        fileMeta: FileMeta(checksum: checksum, compression: "raw", size: size, fileName: name)
                    )
                )
                return try await api.request(.post, "/v1/storage/files", token: client.token, json: request).status
            }
            #expect(try await file(size: 1_000_000_000_000_000) == .contentTooLarge)
            #expect(try await file(size: 10, name: String(repeating: "n", count: 1025)) == .badRequest)
            #expect(try await file(size: 10, type: String(repeating: "t", count: 1025)) == .badRequest)
            #expect(try await file(size: 10) == .accepted)

            let longType = String(repeating: "t", count: 1025)
            let eakPath = "/v1/storage/access_keys/\(client.clientID)/\(client.clientID)/\(client.clientID)/\(longType)"
            #expect(
                try await api.request(.put, eakPath, token: client.token, json: AccessKeyPutRequest(eak: "a.b")).status
                    == .badRequest
            )
            let policyPath = "/v1/storage/policy/\(client.clientID)/\(client.clientID)/\(client.clientID)/\(longType)"
            #expect(
                try await api.request(
                    .put,
                    policyPath,
                    token: client.token,
                    json: PolicyRequest(allow: [.init(read: [:])])
                )
                .status == .badRequest
            )
            // One grapheme, 2 KB of combining marks: measured in bytes, it is too long.
            let name = "a" + String(repeating: "\u{0301}", count: 1000)
            let body = try API.registrationBody(name: name, keys: ClientKeys.generate())
            #expect(try await api.request(.post, "/v1/account/e3db/clients/register", body: body).status == .badRequest)
        }
    }

    @Test("pending files expire: a stale pending record and its blob are removed", arguments: TestEngine.available)
    func pendingFilesExpire(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.pendingFileLifetime = .zero
        try await TestServer.run(engine: engine, limits: limits) { api in
            let client = try await api.register()
            let checksum = Data(repeating: 1, count: 16).base64EncodedString()
            let request = FileWriteRequest(
                meta: .init(
                    writerID: client.clientID,
                    userID: client.clientID,
                    type: "f",
                    plain: nil,
                    fileMeta: FileMeta(checksum: checksum, compression: "raw", size: 10)
                )
            )
            let first = try await api.request(.post, "/v1/storage/files", token: client.token, json: request)
            let pending = try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: first.body))
            _ = try await api.request(.post, "/v1/storage/files", token: client.token, json: request)
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(pending.id)",
                authorization: "Bearer \(client.token)"
            )
            #expect(commit.status == .notFound, "the first pending file was removed by the second create")
        }
    }

    @Test("sharing listings are paginated with limit and offset, and capped", arguments: TestEngine.available)
    func listings(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            for index in 0..<5 {
                let path = "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/type-\(index)"
                let response = try await api.request(
                    .put,
                    path,
                    token: writer.token,
                    json: PolicyRequest(allow: [.init(read: [:])])
                )
                #expect(response.status == .created)
            }
            func incoming(_ query: String) async throws -> TestResponse {
                try await api.request(
                    .get,
                    "/v1/storage/policy/incoming\(query)",
                    authorization: "Bearer \(reader.token)"
                )
            }
            func count(_ query: String) async throws -> Int {
                try JSONDecoder().decode([IncomingShare].self, from: Data(buffer: try await incoming(query).body)).count
            }
            #expect(try await count("") == 5)
            #expect(try await count("?limit=2") == 2)
            #expect(try await count("?limit=2&offset=4") == 1)
            #expect(try await incoming("?limit=5000").status == .badRequest)
            #expect(try await incoming("?offset=-1").status == .badRequest)
            #expect(try await incoming("?limit=x").status == .badRequest)
        }
    }
}
