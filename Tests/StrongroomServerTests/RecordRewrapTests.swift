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

/// `POST /v2/storage/access_keys/{writer}/{user}/{type}/rewrap` (docs/design/Revocation.md, "The bulk re-wrap"): a
/// page of the writer's records re-wrapped in one transaction, fenced by the generation, refused whole when more
/// than the data keys' wraps changed.
@Suite struct RecordRewrapTests {
    static let type = "rewrapped"

    static func rewrap(
        _ api: API,
        as caller: RegisteredClient,
        writer: RegisteredClient,
        type: String = type,
        _ body: RecordRewrapRequest
    ) async throws -> (status: Int, body: RecordRewrapResponse?) {
        let path = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(type)/rewrap"
        let answer = try await api.request(.post, path, token: caller.token, json: body)
        return (
            Int(answer.status.code),
            try? JSONDecoder().decode(RecordRewrapResponse.self, from: Data(buffer: answer.body))
        )
    }

    /// `record`'s fields with their data keys moved from `old` to `new`.
    static func moved(_ record: RecordResponse, from old: AccessKey, to new: AccessKey) throws -> [String: String] {
        try record.data.mapValues {
            try FieldCipher.rewrap(EncryptedField(wireFormat: $0), from: old, to: new).wireFormat
        }
    }

    @Test(
        "a page re-wrapped at once; stale versions and others' records answered per record; more than wraps refused whole",
        arguments: TestEngine.available
    )
    func bulk(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let other = try await api.register("other")
            let old = AccessKey()
            let new = AccessKey()
            var records: [RecordResponse] = []
            for index in 0..<3 {
                records.append(
                    try await api.writeRecord(
                        as: writer,
                        type: Self.type,
                        fields: ["n": "\(index)", "m": "x"],
                        accessKey: old
                    )
                )
            }
            let foreign = try await api.writeRecord(as: other, type: Self.type, fields: ["n": "9"], accessKey: old)
            func item(_ record: RecordResponse, version: String? = nil) throws -> RecordRewrapRequest.Record {
                .init(
                    recordID: record.meta.recordID,
                    version: version ?? record.meta.version,
                    data: try Self.moved(record, from: old, to: new)
                )
            }

            // Refused whole, nothing stored: a value ciphertext changed, a record named twice, a malformed field, a
            // future generation, a caller who is not the writer, a replicated type, too many records.
            var altered = try item(records[0])
            altered.data["n"] = FieldCipher.encrypt(fields: ["n": "forged"], with: new)["n"]
            let refusals: [(RecordRewrapRequest, Int)] = [
                (RecordRewrapRequest(generation: 1, records: [try item(records[1]), altered]), 400),
                (RecordRewrapRequest(generation: 1, records: [try item(records[1]), try item(records[1])]), 400),
                (
                    RecordRewrapRequest(
                        generation: 1,
                        records: [
                            .init(
                                recordID: records[1].meta.recordID,
                                version: records[1].meta.version,
                                data: ["n": "x.y"]
                            )
                        ]
                    ), 400
                ),
                (RecordRewrapRequest(generation: 2, records: [try item(records[1])]), 409),
            ]
            for (body, status) in refusals {
                #expect(try await Self.rewrap(api, as: writer, writer: writer, body).status == status)
            }
            #expect(
                try await Self.rewrap(
                    api,
                    as: other,
                    writer: writer,
                    RecordRewrapRequest(generation: 1, records: [try item(records[1])])
                ).status == 403
            )
            #expect(
                try await Self.rewrap(
                    api,
                    as: writer,
                    writer: writer,
                    type: "sr1.store",
                    RecordRewrapRequest(generation: 1, records: [])
                ).status == 400
            )
            let many = (0..<1_001).map { _ in
                RecordRewrapRequest.Record(
                    recordID: UUID().uuidString.lowercased(),
                    version: "v",
                    data: ["n": "a.b.c.d"]
                )
            }
            #expect(
                try await Self.rewrap(
                    api,
                    as: writer,
                    writer: writer,
                    RecordRewrapRequest(generation: 1, records: many)
                ).status == 413
            )
            for record in records {
                let stored = try await api.request(
                    .get,
                    "/v1/storage/records/\(record.meta.recordID)",
                    authorization: "Bearer \(writer.token)"
                )
                #expect(
                    try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: stored.body)) == record,
                    "unchanged"
                )
            }

            // Two re-wrapped, one at a stale version, one another writer's, one unknown.
            let unknown = RecordRewrapRequest.Record(
                recordID: UUID().uuidString.lowercased(),
                version: "v",
                data: try Self.moved(records[0], from: old, to: new)
            )
            let body = RecordRewrapRequest(
                generation: 1,
                records: [
                    try item(records[0]), try item(records[1]), try item(records[2], version: "stale"),
                    try item(foreign), unknown,
                ]
            )
            let (status, answer) = try await Self.rewrap(api, as: writer, writer: writer, body)
            #expect(status == 200)
            let outcomes = try #require(answer).results
            #expect(outcomes.map(\.outcome) == ["rewrapped", "rewrapped", "conflict", "not_found", "not_found"])
            for (index, record) in records.prefix(2).enumerated() {
                let stored = try await api.request(
                    .get,
                    "/v1/storage/records/\(record.meta.recordID)",
                    authorization: "Bearer \(writer.token)"
                )
                let read = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: stored.body))
                #expect(read.meta.version == outcomes[index].version && read.meta.version != record.meta.version)
                #expect(read.data == body.records[index].data)
                let opened = try FieldCipher.decrypt(fields: read.data, with: new)
                #expect(opened["n"] == "\(index)" && opened["m"] == "x")
            }
        }
    }
    @Test(
        "the listing pages the writer's records of the type in index order, fields as stored, files flagged",
        arguments: TestEngine.available
    )
    func listing(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let other = try await api.register("other")
            let key = AccessKey()
            var written: [RecordResponse] = []
            for index in 0..<5 {
                written.append(
                    try await api.writeRecord(as: writer, type: Self.type, fields: ["n": "\(index)"], accessKey: key)
                )
            }
            _ = try await api.writeRecord(as: writer, type: "another", fields: ["n": "x"], accessKey: key)
            _ = try await api.writeRecord(as: other, type: Self.type, fields: ["n": "y"], accessKey: key)
            let body = [UInt8](repeating: 7, count: 300)
            let pending = try await api.createFile(as: writer, body: body, type: Self.type)
            // Never committed: not listed.
            let unlisted = try await api.createFile(as: writer, body: body, type: Self.type)
            #expect(try await api.upload(pending, body: body) == .ok)
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(pending.id)",
                authorization: "Bearer \(writer.token)"
            )
            #expect(commit.status == .created)
            let base = "/v2/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(Self.type)/rewrap"
            func page(_ query: String, as caller: RegisteredClient? = nil) async throws -> (Int, RecordRewrapListing?) {
                let answer = try await api.request(
                    .get,
                    base + query,
                    authorization: "Bearer \((caller ?? writer).token)"
                )
                return (
                    Int(answer.status.code),
                    try? JSONDecoder().decode(RecordRewrapListing.self, from: Data(buffer: answer.body))
                )
            }
            // Pages of two, in order, until an empty one; the committed file flagged, the pending one not listed.
            var (seen, after) = ([RecordRewrapListing.Record](), Int64(0))
            while true {
                let (status, listing) = try await page("?after=\(after)&count=2")
                #expect(status == 200)
                let records = try #require(listing).records
                #expect(records.count <= 2)
                guard !records.isEmpty else {
                    #expect(listing?.lastIndex == after)
                    break
                }
                seen += records
                after = try #require(listing).lastIndex
            }
            #expect(seen.map(\.recordID) == written.map(\.meta.recordID) + [pending.id])
            #expect(seen.dropLast().map(\.version) == written.map(\.meta.version))
            #expect(seen.dropLast().map(\.data) == written.map(\.data) && seen.dropLast().allSatisfy { !$0.file })
            #expect(seen.last?.file == true && seen.last?.data == [:] && !seen.contains { $0.recordID == unlisted.id })
            // Bounds and callers: a count of 0 or past the limit, a negative or non-numeric index, another client.
            for query in ["?count=0", "?count=1001", "?after=-1", "?after=x", "?after=99999999999999999999"] {
                #expect(try await page(query).0 == 400, "\(query)")
            }
            #expect(try await page("", as: other).0 == 403)
        }
    }
}
