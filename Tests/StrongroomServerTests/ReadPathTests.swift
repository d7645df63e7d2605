// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// The record read path (#17): one database query per authenticated read once the caller's row is cached, and the
/// answer carries the stored ciphertext JSON as it is — the same record a decoded and re-encoded answer would give.
@Suite struct ReadPathTests {
    static let adminToken = String(repeating: "r", count: 40)

    @Test("a record read by a cached caller costs one database query", arguments: TestEngine.available)
    func oneQueryPerRead(engine: TestEngine) async throws {
        // The caller's row stays cached for the whole count however slow the machine (a deployment's 10 s could
        // expire between two reads and add a query).
        try await TestServer.run(engine: engine, adminToken: Self.adminToken, clientCacheLifetime: .seconds(3600)) {
            api in
            let client = try await api.register()
            let record = try await api.writeRecord(as: client, type: "t", fields: ["f": "v"], accessKey: AccessKey())
            let path = "/v1/storage/records/\(record.meta.recordID)"
            // The first read caches the caller.
            #expect(try await api.request(.get, path, authorization: "Bearer \(client.token)").status == .ok)
            let before = try await queries(api)
            for _ in 0..<3 {
                #expect(try await api.request(.get, path, authorization: "Bearer \(client.token)").status == .ok)
            }
            #expect(try await queries(api) - before == 3)
        }
    }

    @Test("whole and filtered reads and the write's answer carry the stored record", arguments: TestEngine.available)
    func answersCarryTheStoredRecord(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let data = ["a": "x.y/z\"\\\u{1}", "b/c": "é.ü", "d": String(repeating: "q", count: 4096)]
            let signature = "sig/\"quoted\"\\é"
            let request = RecordWriteRequest(
                meta: .init(writerID: client.clientID, userID: client.clientID, type: "t", plain: ["p": "/\""]),
                data: data,
                recordSignature: signature
            )
            let written = try await api.request(.post, "/v1/storage/records", token: client.token, json: request)
            #expect(written.status == .created)
            let created = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: written.body))
            #expect(created.data == data)
            #expect(created.recordSignature == signature)
            #expect(created.meta.plain == ["p": "/\""])

            let path = "/v1/storage/records/\(created.meta.recordID)"
            let whole = try await api.request(.get, path, authorization: "Bearer \(client.token)")
            #expect(whole.headers[.contentType] == "application/json")
            let read = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: whole.body))
            #expect(read == created)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: whole.body)) as? [String: Any]
            )
            #expect(Set(object.keys) == ["meta", "data", "rec_sig"])

            let filtered = try await api.request(
                .get,
                path + "?field=a&field=b%2Fc",
                authorization: "Bearer \(client.token)"
            )
            let some = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: filtered.body))
            #expect(some.data == ["a": data["a"]!, "b/c": data["b/c"]!])
            #expect(some.meta == created.meta)

            let unsigned = try await api.writeRecord(as: client, type: "t", fields: ["f": "v"], accessKey: AccessKey())
            let plain = try await api.request(
                .get,
                "/v1/storage/records/\(unsigned.meta.recordID)",
                authorization: "Bearer \(client.token)"
            )
            let unsignedObject = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: plain.body)) as? [String: Any]
            )
            #expect(Set(unsignedObject.keys) == ["meta", "data"])
            #expect(try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: plain.body)) == unsigned)
        }
    }

    private func queries(_ api: API) async throws -> Double {
        let metrics = try await api.request(.get, "/metrics", authorization: "Bearer \(Self.adminToken)")
        let text = String(buffer: metrics.body)
        let line = text.split(separator: "\n").first { $0.hasPrefix("strongroom_database_queries_total ") }
        return try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") })
    }
}
