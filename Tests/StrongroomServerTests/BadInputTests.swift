// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// Bad input gets a 4xx JSON error and changes nothing.
@Suite struct BadInputTests {
    @Test("malformed bodies and wrong types → 400, and the record store is unchanged", arguments: TestEngine.available)
    func malformedBodies(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let bodies = [
                "", "{", "not json", "[]", "null", "{\"meta\": 5}", "{\"meta\": {\"type\": 5}, \"data\": {}}",
                "{\"meta\": {\"type\": \"t\"}, \"data\": {\"f\": 1}}", "{\"meta\": {\"type\": \"t\"}, \"data\": {}}",
                "{\"meta\": {\"type\": \"\"}, \"data\": {\"f\": \"x\"}}",
            ]
            for body in bodies {
                let response = try await api.request(
                    .post,
                    "/v1/storage/records",
                    authorization: "Bearer \(client.token)",
                    body: body
                )
                #expect(response.status == .badRequest, "body \(body)")
                #expect((try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))) != nil)
            }
            let search = try await api.request(.post, "/v1/storage/search", token: client.token, json: SearchRequest())
            #expect(try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: search.body)).results.isEmpty)
        }
    }

    @Test("bad UUIDs and unknown records → 404; a bad search → 400 with an error key", arguments: TestEngine.available)
    func badIdentifiers(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            for path in [
                "/v1/storage/clients/doesnt%20exist", "/v1/storage/clients/0e8eb8c6-839f-46ca-9843-801c539e490f",
                "/v1/storage/records/not-a-uuid", "/v1/storage/records/0e8eb8c6-839f-46ca-9843-801c539e490f",
            ] {
                #expect(
                    try await api.request(.get, path, authorization: "Bearer \(client.token)").status == .notFound,
                    "\(path)"
                )
            }
            let search = try await api.request(
                .post,
                "/v1/storage/search",
                token: client.token,
                json: SearchRequest(afterIndex: -99)
            )
            #expect(search.status == .badRequest)
            #expect(String(decoding: Data(buffer: search.body), as: UTF8.self).contains("\"error\""))
        }
    }

    @Test("an oversize body → 413", arguments: TestEngine.available)
    func oversize(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let huge =
                "{\"meta\": {\"type\": \"t\"}, \"data\": {\"f\": \"" + String(repeating: "x", count: 17 << 20) + "\"}}"
            // 17 MiB through AsyncHTTPClient with minutes to spare: the test client's fixed 15 s is not enough for
            // it on a loaded two-core machine, and this test is about the answer, not the speed.
            var request = HTTPClientRequest(url: api.baseURL + "/v1/storage/records")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(client.token)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: huge))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
            #expect(response.status == .payloadTooLarge)
            _ = try? await response.body.collect(upTo: 1 << 20)
        }
    }

    @Test(
        "a stale version → 409 on update and delete; the current version still works",
        arguments: TestEngine.available
    )
    func staleVersion(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let key = AccessKey()
            let record = try await api.writeRecord(as: client, type: "t", fields: ["f": "v1"], accessKey: key)
            let update = RecordWriteRequest(
                meta: .init(writerID: nil, userID: nil, type: "t", plain: nil),
                data: FieldCipher.encrypt(fields: ["f": "v2"], with: key)
            )
            let first = try await api.request(
                .put,
                "/v1/storage/records/safe/\(record.meta.recordID)/\(record.meta.version)",
                token: client.token,
                json: update
            )
            #expect(first.status == .ok)
            let updated = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: first.body))
            #expect(updated.meta.version != record.meta.version)
            #expect(updated.meta.created == record.meta.created)
            let stale = try await api.request(
                .put,
                "/v1/storage/records/safe/\(record.meta.recordID)/\(record.meta.version)",
                token: client.token,
                json: update
            )
            #expect(stale.status == .conflict)
            let staleDelete = try await api.request(
                .delete,
                "/v1/storage/records/safe/\(record.meta.recordID)/\(record.meta.version)",
                authorization: "Bearer \(client.token)"
            )
            #expect(staleDelete.status == .conflict)
            let read = try await api.request(
                .get,
                "/v1/storage/records/\(record.meta.recordID)",
                authorization: "Bearer \(client.token)"
            )
            let current = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: read.body))
            #expect(try FieldCipher.decrypt(fields: current.data, with: key) == ["f": "v2"])
            let delete = try await api.request(
                .delete,
                "/v1/storage/records/safe/\(record.meta.recordID)/\(updated.meta.version)",
                authorization: "Bearer \(client.token)"
            )
            #expect(delete.status == .noContent)
        }
    }

    @Test("unknown, revoked or missing registration tokens and bad keys are refused", arguments: TestEngine.available)
    func registration(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let key = EncryptionPrivateKey().publicKey.base64URLEncoded
            let cases: [(String, HTTPResponse.Status)] = [
                (
                    "{\"token\": \"nope\", \"client\": {\"name\": \"x\", \"public_key\": {\"curve25519\": \"\(key)\"}}}",
                    .unauthorized
                ),
                (
                    "{\"token\": \"\(TestServer.registrationToken)\", \"client\": {\"name\": \"x\", \"public_key\": {\"curve25519\": \"short\"}}}",
                    .badRequest
                ),
                ("{\"token\": \"\(TestServer.registrationToken)\", \"client\": {\"name\": \"x\"}}", .badRequest),
                ("{\"token\": \"\(TestServer.registrationToken)\"}", .badRequest),
            ]
            for (body, status) in cases {
                let response = try await api.request(.post, "/v1/account/e3db/clients/register", body: body)
                #expect(response.status == status, "\(body)")
            }
        }
    }

    @Test(
        "NUL characters in types, names and path segments are refused with 400, never a 5xx",
        arguments: TestEngine.available
    )
    func nulCharacters(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let bearer = "Bearer \(client.token)"
            let record = "{\"meta\": {\"type\": \"a\\u0000b\"}, \"data\": {\"f\": \"x\"}}"
            #expect(
                try await api.request(.post, "/v1/storage/records", authorization: bearer, body: record).status
                    == .badRequest
            )
            // An escaped backslash followed by "u0000" is ordinary text, not a NUL.
            let backslash = "{\"meta\": {\"type\": \"t\"}, \"data\": {\"f\": \"x\\\\u0000\"}}"
            #expect(
                try await api.request(.post, "/v1/storage/records", authorization: bearer, body: backslash).status
                    == .created
            )
            let path = "/v1/storage/access_keys/\(client.clientID)/\(client.clientID)/\(client.clientID)/a%00b"
            #expect(
                try await api.request(.put, path, authorization: bearer, body: "{\"eak\": \"x\"}").status == .badRequest
            )
            #expect(try await api.request(.get, path, authorization: bearer).status == .badRequest)
            let policy = "/v1/storage/policy/\(client.clientID)/\(client.clientID)/\(client.clientID)/a%00b"
            #expect(
                try await api.request(.put, policy, authorization: bearer, body: "{\"allow\": [{\"read\": {}}]}").status
                    == .badRequest
            )
            let registration =
                "{\"token\": \"\(TestServer.registrationToken)\", \"client\": {\"name\": \"a\\u0000\", \"public_key\": {\"curve25519\": \"\(client.keys.encryptionKey.publicKey.base64URLEncoded)\"}}}"
            #expect(
                try await api.request(.post, "/v1/account/e3db/clients/register", body: registration).status
                    == .badRequest
            )
        }
    }
}
