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

/// Replication's server side (docs/design/Replication.md, slice 2), on SQLite and PostgreSQL: revs_diff answers
/// which tags no readable record carries; a bulk write is idempotent per writer, type and tag; both are bounded;
/// the records are ordinary v1 records of their type.
@Suite struct SyncRoutesTests {
    static let type = "sr1.testdatastore0000000"

    static func tag(_ number: Int) -> String {
        Base64URLTag.make(number)
    }

    /// A revision record write: encrypted fields under `key`, the tag in plain meta.
    static func write(
        _ client: RegisteredClient,
        tag: String,
        key: AccessKey,
        body: String = "{}"
    ) -> RecordWriteRequest {
        RecordWriteRequest(
            meta: .init(
                writerID: client.clientID,
                userID: client.clientID,
                type: type,
                plain: ["sr.v": "1", "sr.d": tag + "d", "sr.r": tag]
            ),
            data: FieldCipher.encrypt(fields: ["body": body], with: key)
        )
    }

    static func bulk(
        _ api: API,
        _ client: RegisteredClient,
        _ records: [RecordWriteRequest]
    ) async throws -> TestResponse {
        try await api.request(.post, "/v2/sync/bulk", token: client.token, json: SyncBulkRequest(records: records))
    }

    /// A v1 record write of `type` with `plain` meta.
    static func record(
        _ api: API,
        _ client: RegisteredClient,
        type: String = type,
        plain: [String: String],
        key: AccessKey
    ) async throws -> TestResponse {
        try await api.request(
            .post,
            "/v1/storage/records",
            token: client.token,
            json: RecordWriteRequest(
                meta: .init(writerID: client.clientID, userID: client.clientID, type: type, plain: plain),
                data: FieldCipher.encrypt(fields: ["body": "{}"], with: key)
            )
        )
    }

    static func missing(
        _ api: API,
        _ client: RegisteredClient,
        _ tags: [String],
        type: String = type
    ) async throws
        -> [String]
    {
        let response = try await api.request(
            .post,
            "/v2/sync/revs_diff",
            token: client.token,
            json: SyncRevsDiffRequest(type: type, tags: tags)
        )
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        return try JSONDecoder().decode(SyncRevsDiffResponse.self, from: Data(buffer: response.body)).missing
    }

    @Test(
        "bulk stores once per tag (a retry stores nothing twice); revs_diff sees only readable records",
        arguments: TestEngine.available
    )
    func idempotentBulk(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let alice = try await api.register("alice")
            let bob = try await api.register("bob")
            let key = AccessKey()
            let tags = (0..<3).map(Self.tag)
            #expect(try await Self.missing(api, alice, tags + [tags[0]]) == tags, "repeats are answered once")

            let first = try await Self.bulk(api, alice, tags.map { Self.write(alice, tag: $0, key: key) })
            try #require(first.status == .ok, "\(String(buffer: first.body))")
            let stored = try JSONDecoder().decode(SyncBulkResponse.self, from: Data(buffer: first.body)).records
            #expect(stored.map(\.tag) == tags && stored.allSatisfy(\.created))

            // The retry of a batch cut short: the old ones are not stored again, the new one is.
            let retry = try await Self.bulk(
                api,
                alice,
                (tags + [Self.tag(3)]).map { Self.write(alice, tag: $0, key: key) }
            )
            try #require(retry.status == .ok, "\(String(buffer: retry.body))")
            let again = try JSONDecoder().decode(SyncBulkResponse.self, from: Data(buffer: retry.body)).records
            #expect(again.map(\.created) == [false, false, false, true])
            #expect(Array(again.prefix(3).map(\.recordID)) == stored.map(\.recordID))
            #expect(try await Self.missing(api, alice, (0..<5).map(Self.tag)) == [Self.tag(4)])

            // Bob reads none of them until they are shared; his own tags are his.
            #expect(try await Self.missing(api, bob, tags) == tags)
            try await api.share(Self.type, from: alice, to: bob, accessKey: key)
            #expect(try await Self.missing(api, bob, tags).isEmpty)
            // The same tag from another writer is another record (tags are unique per writer and type).
            let bobs = try await Self.bulk(api, bob, [Self.write(bob, tag: tags[0], key: key)])
            #expect(try JSONDecoder().decode(SyncBulkResponse.self, from: Data(buffer: bobs.body)).records[0].created)
            // Another type knows none of them.
            #expect(try await Self.missing(api, alice, tags, type: "sr1.another000000000000") == tags)

            // They are ordinary v1 records of their type, found by the v1 changes feed (search with after_index).
            let search = try await api.request(
                .post,
                "/v1/storage/search",
                token: alice.token,
                json: SearchRequest(afterIndex: 0, includeData: true, contentTypes: [Self.type])
            )
            let results = try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: search.body)).results
            #expect(results.count == 4 && results.allSatisfy { $0.meta.plain["sr.r"] != nil })

            // A batch larger than one multi-row insert, its first four tags stored already: answered in order.
            let large = (0..<250).map(Self.tag)
            let big = try await Self.bulk(api, alice, large.map { Self.write(alice, tag: $0, key: key) })
            try #require(big.status == .ok, "\(String(buffer: big.body))")
            let outcomes = try JSONDecoder().decode(SyncBulkResponse.self, from: Data(buffer: big.body)).records
            #expect(outcomes.map(\.tag) == large)
            #expect(outcomes.map(\.created) == Array(repeating: false, count: 4) + Array(repeating: true, count: 246))
            #expect(Array(outcomes.prefix(4).map(\.recordID)) == again.map(\.recordID))
            #expect(Set(outcomes.map(\.recordID)).count == 250)
            #expect(try await Self.missing(api, alice, large).isEmpty)
        }
    }

    @Test(
        "changes: at once when a record lies after the index, else after the wait; checkpoint records do not count",
        arguments: TestEngine.available
    )
    func changesLongPoll(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let alice = try await api.register("alice")
            let bob = try await api.register("bob")
            let key = AccessKey()
            func changes(
                _ client: RegisteredClient,
                after: Int64,
                wait: Int
            ) async throws -> (HTTPResponse.Status, Int64?) {
                let response = try await api.request(
                    .post,
                    "/v2/sync/changes",
                    token: client.token,
                    json: SyncChangesRequest(type: Self.type, afterIndex: after, wait: wait)
                )
                let index = try? JSONDecoder().decode(SyncChangesResponse.self, from: Data(buffer: response.body))
                    .lastIndex
                return (response.status, index)
            }
            #expect(try await changes(alice, after: 0, wait: 0) == (.ok, 0))
            // A replica's checkpoint record is rewritten by every replication: it wakes nobody.
            var checkpoint = Self.write(alice, tag: Self.tag(0), key: key)
            checkpoint.meta.plain = ["sr.v": "1", "sr.c": "checkpoint"]
            let written = try await api.request(.post, "/v1/storage/records", token: alice.token, json: checkpoint)
            try #require(written.status == .created || written.status == .ok, "\(String(buffer: written.body))")
            #expect(try await changes(alice, after: 0, wait: 1) == (.ok, 0))

            // A revision after the index: answered at once, whatever the wait (a poll woken by a write while it waits
            // is LiveReplicationTests', against a real server: this test client has one connection).
            let stored = try await Self.bulk(api, alice, [Self.write(alice, tag: Self.tag(1), key: key)])
            try #require(stored.status == .ok)
            let (status, index) = try await changes(alice, after: 0, wait: 20)
            #expect(status == .ok && (index ?? 0) > 0, "\(String(describing: index))")
            #expect(try await changes(alice, after: index ?? 0, wait: 0) == (.ok, index ?? 0))
            #expect(try await changes(bob, after: 0, wait: 0) == (.ok, 0), "not readable by bob")
            #expect(try await changes(alice, after: -1, wait: 0).0 == .badRequest)
            #expect(try await changes(alice, after: 0, wait: 3_601).0 == .badRequest)
        }
    }

    @Test(
        "purge deletes only the caller's own records of the tags asked for, idempotently",
        arguments: TestEngine.available
    )
    func purge(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let alice = try await api.register("alice")
            let bob = try await api.register("bob")
            let key = AccessKey()
            let tags = (0..<3).map(Self.tag)
            let stored = try await Self.bulk(api, alice, tags.map { Self.write(alice, tag: $0, key: key) })
            try #require(stored.status == .ok)
            func purge(_ client: RegisteredClient, _ tags: [String]) async throws -> (HTTPResponse.Status, Int?) {
                let response = try await api.request(
                    .post,
                    "/v2/sync/purge",
                    token: client.token,
                    json: SyncPurgeRequest(type: Self.type, tags: tags)
                )
                let removed = try? JSONDecoder().decode(SyncPurgeResponse.self, from: Data(buffer: response.body))
                    .removed
                return (response.status, removed)
            }
            #expect(try await purge(bob, tags) == (.ok, 0), "another writer's records stay")
            #expect(try await purge(alice, [tags[0], "not a tag!"]).0 == .badRequest)
            #expect(try await purge(alice, (0..<1_001).map(Self.tag)).0 == .badRequest)
            #expect(try await purge(alice, [tags[0], tags[1], tags[0]]) == (.ok, 2))
            #expect(try await purge(alice, [tags[0], tags[1]]) == (.ok, 0), "idempotent")
            #expect(try await Self.missing(api, alice, tags) == [tags[0], tags[1]])
        }
    }

    @Test(
        "access: the type's writer owns it at its first access; a revoked or read-only member's writes are refused",
        arguments: TestEngine.available
    )
    func access(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let (owner, writer, reader) = (
                try await api.register("owner"), try await api.register("writer"), try await api.register("reader")
            )
            let key = AccessKey()
            func set(
                _ caller: RegisteredClient,
                _ member: RegisteredClient,
                _ access: String
            ) async throws -> HTTPResponse.Status {
                try await api.request(
                    .post,
                    "/v2/sync/access",
                    token: caller.token,
                    // As JSON text, so that an access the protocol does not have can be sent too.
                    json: ["type": Self.type, "member": member.clientID, "access": access]
                ).status
            }
            func push(_ client: RegisteredClient, _ number: Int) async throws -> HTTPResponse.Status {
                try await Self.bulk(api, client, [Self.write(client, tag: Self.tag(number), key: key)]).status
            }
            func record(_ client: RegisteredClient, plain: [String: String]) async throws -> HTTPResponse.Status {
                try await Self.record(api, client, plain: plain, key: key).status
            }
            // Before any access is set the type is open, as every type is; the owner wrote it first.
            #expect(try await push(owner, 11) == .ok)
            #expect(try await push(writer, 1) == .ok)
            #expect(try await set(writer, reader, "readWrite") == .forbidden, "not the type's first writer")
            #expect(try await set(owner, writer, "readWrite") == .ok)
            #expect(try await set(owner, reader, "read") == .ok)
            #expect(try await set(writer, reader, "readWrite") == .forbidden, "only the owner sets access")
            #expect(try await set(owner, owner, "read") == .badRequest)
            #expect(try await set(owner, writer, "owner") == .badRequest)
            let plainType = try await api.request(
                .post,
                "/v2/sync/access",
                token: owner.token,
                json: SyncAccessRequest(type: "notes", member: writer.clientID, access: .revoked)
            )
            #expect(plainType.status == .badRequest, "only a replicated datastore's type has members")
            #expect(try await push(owner, 2) == .ok)
            #expect(try await push(writer, 3) == .ok)
            #expect(try await push(reader, 4) == .forbidden)
            #expect(try await record(reader, plain: ["sr.c": "x"]) == .created, "a reader keeps its checkpoint")
            #expect(try await record(reader, plain: ["sr.v": "1"]) == .forbidden)
            #expect(try await set(owner, writer, "none") == .ok)
            #expect(try await push(writer, 5) == .forbidden)
            #expect(try await record(writer, plain: ["sr.c": "x"]) == .forbidden)
            #expect(try await push(owner, 6) == .ok)
            #expect(try await Self.missing(api, owner, [Self.tag(5)]) == [Self.tag(5)])
        }
    }

    @Test(
        "caps: revisions per writer and document, records per writer and type (v1 writes and files too), attachment size and bytes per type; v1 writes only bookkeeping",
        arguments: TestEngine.available
    )
    func caps(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.syncRecordsPerWriterAndType = 6
        limits.syncRevisionsPerDocument = 3
        limits.maximumAttachmentBytes = 100
        limits.syncAttachmentBytesPerType = 150
        try await TestServer.run(engine: engine, limits: limits) { api in
            let (alice, bob) = (try await api.register("alice"), try await api.register("bob"))
            let key = AccessKey()
            /// A revision of document `document` with tag `number`.
            func revision(_ client: RegisteredClient, _ number: Int, of document: String) -> RecordWriteRequest {
                var write = Self.write(client, tag: Self.tag(number), key: key)
                write.meta.plain?["sr.d"] = document
                return write
            }
            func record(
                _ client: RegisteredClient,
                type: String = Self.type,
                plain: [String: String]
            ) async throws
                -> TestResponse
            {
                try await Self.record(api, client, type: type, plain: plain, key: key)
            }
            func file(
                _ client: RegisteredClient,
                size: Int64,
                plain: [String: String] = ["sr.a": "address"]
            ) async throws
                -> HTTPResponse.Status
            {
                let create = FileWriteRequest(
                    meta: .init(
                        writerID: client.clientID,
                        userID: client.clientID,
                        type: Self.type,
                        plain: plain,
                        fileMeta: FileMeta(checksum: "1B2M2Y8AsgTpgAmY7PhCfg==", compression: "raw", size: size)
                    )
                )
                return try await api.request(.post, "/v1/storage/files", token: client.token, json: create).status
            }
            // Three revisions of one document, then a fourth: 413, nothing of its batch stored.
            let three = (1...3).map { revision(alice, $0, of: "docA") }
            #expect(try await Self.bulk(api, alice, three).status == .ok)
            let fourth = [revision(alice, 4, of: "docB"), revision(alice, 5, of: "docA")]
            #expect(try await Self.bulk(api, alice, fourth).status == .contentTooLarge)
            #expect(try await Self.missing(api, alice, [Self.tag(4)]) == [Self.tag(4)])
            #expect(try await Self.bulk(api, bob, [revision(bob, 6, of: "docA")]).status == .ok, "bob's own count")
            var untagged = revision(alice, 7, of: "docB")
            untagged.meta.plain?["sr.d"] = nil
            #expect(try await Self.bulk(api, alice, [untagged]).status == .badRequest, "a revision names its document")
            #expect(try await Self.bulk(api, alice, [revision(alice, 4, of: "docB")]).status == .ok)
            // v1 writes of a replicated type: bookkeeping only, and counted with the revisions.
            #expect(try await record(alice, plain: ["sr.v": "1"]).status == .badRequest)
            #expect(try await record(alice, plain: ["sr.c": "x", "sr.r": Self.tag(9)]).status == .badRequest)
            #expect(try await record(alice, plain: ["sr.c": "x", "sr.p": "y"]).status == .badRequest)
            #expect(try await record(alice, type: "notes", plain: ["sr.v": "1"]).status == .created, "other types")
            let checkpoint = try await record(alice, plain: ["sr.c": "x"])
            #expect(checkpoint.status == .created)
            // Attachment bodies: tagged, within the size, counted against the writer and the type's bytes.
            #expect(try await file(alice, size: 10, plain: [:]) == .badRequest)
            #expect(try await file(alice, size: 101) == .contentTooLarge)
            #expect(try await file(alice, size: 100) == .accepted)
            #expect(try await file(bob, size: 60) == .accepted, "a declared file holds no room: counted at its commit")
            #expect(try await file(bob, size: 151) == .contentTooLarge, "150 bytes per type, all writers")
            // Alice keeps six records of the type now (four revisions, a checkpoint, a file).
            #expect(try await record(alice, plain: ["sr.c": "y"]).status == .contentTooLarge)
            #expect(try await Self.bulk(api, alice, [revision(alice, 8, of: "docC")]).status == .contentTooLarge)
            // In place, only a checkpoint changes.
            func update(_ meta: RecordMeta, plain: [String: String]) async throws -> HTTPResponse.Status {
                try await api.request(
                    .put,
                    "/v1/storage/records/safe/\(meta.recordID)/\(meta.version)",
                    token: alice.token,
                    json: RecordWriteRequest(
                        meta: .init(writerID: alice.clientID, userID: alice.clientID, type: Self.type, plain: plain),
                        data: FieldCipher.encrypt(fields: ["body": "{}"], with: key)
                    )
                ).status
            }
            let stored = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: checkpoint.body)).meta
            #expect(try await update(stored, plain: ["sr.c": "x"]) == .ok)
            let pushed = try JSONDecoder().decode(
                SyncBulkResponse.self,
                from: Data(buffer: try await Self.bulk(api, alice, [revision(alice, 1, of: "docA")]).body)
            )
            let revisionID = try #require(pushed.records.first?.recordID)
            let read = try await api.request(
                .get,
                "/v1/storage/records/\(revisionID)",
                authorization: "Bearer \(alice.token)"
            )
            let revisionMeta = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: read.body)).meta
            #expect(try await update(revisionMeta, plain: revisionMeta.plain) == .badRequest)
        }
    }

    @Test(
        "bounds and refusals: counts, tags, duplicates, another writer, an empty body",
        arguments: TestEngine.available
    )
    func refusals(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let alice = try await api.register("alice")
            let bob = try await api.register("bob")
            let key = AccessKey()
            func diff(_ body: String) async throws -> HTTPResponse.Status {
                try await api.request(.post, "/v2/sync/revs_diff", authorization: "Bearer \(alice.token)", body: body)
                    .status
            }
            func bulk(_ body: String) async throws -> HTTPResponse.Status {
                try await api.request(.post, "/v2/sync/bulk", authorization: "Bearer \(alice.token)", body: body).status
            }
            let tooMany = (0...1_000).map { "\"\(Self.tag($0))\"" }.joined(separator: ",")
            #expect(try await diff(#"{"type": "\#(Self.type)", "tags": [\#(tooMany)]}"#) == .badRequest)
            #expect(try await diff(#"{"type": "\#(Self.type)", "tags": ["not a tag!"]}"#) == .badRequest)
            #expect(
                try await diff(#"{"type": "\#(Self.type)", "tags": ["\#(String(repeating: "a", count: 87))"]}"#)
                    == .badRequest
            )
            #expect(try await diff(#"{"type": "", "tags": []}"#) == .badRequest)
            #expect(try await diff(#"{"tags": []}"#) == .badRequest)
            #expect(try await diff(#"{"type": "\#(Self.type)", "tags": []}"#) == .ok)

            func encoded(_ records: [RecordWriteRequest]) throws -> String {
                String(decoding: try JSONEncoder().encode(SyncBulkRequest(records: records)), as: UTF8.self)
            }
            #expect(try await bulk(#"{"records": []}"#) == .badRequest)
            let many = (0...500).map { Self.write(alice, tag: Self.tag($0), key: key) }
            #expect(try await bulk(try encoded(many)) == .badRequest)
            let twice = [Self.write(alice, tag: Self.tag(1), key: key), Self.write(alice, tag: Self.tag(1), key: key)]
            #expect(try await bulk(try encoded(twice)) == .badRequest)
            var untagged = Self.write(alice, tag: Self.tag(2), key: key)
            untagged.meta.plain?["sr.r"] = nil
            #expect(try await bulk(try encoded([untagged])) == .badRequest)
            var empty = Self.write(alice, tag: Self.tag(3), key: key)
            empty.data = [:]
            #expect(try await bulk(try encoded([empty])) == .badRequest)
            // A revision record larger than the server takes (2 MiB of data by default): 413.
            let huge = Self.write(alice, tag: Self.tag(7), key: key, body: String(repeating: "x", count: 2 << 20))
            #expect(try await bulk(try encoded([huge])) == .contentTooLarge)
            // A record claiming another writer is refused, and nothing of its batch is stored.
            let foreign = [Self.write(alice, tag: Self.tag(4), key: key), Self.write(bob, tag: Self.tag(5), key: key)]
            #expect(try await bulk(try encoded(foreign)) == .forbidden)
            #expect(try await Self.missing(api, alice, [Self.tag(4)]) == [Self.tag(4)])
            // Without credentials: 401.
            let anonymous = try await api.request(
                .post,
                "/v2/sync/bulk",
                body: try encoded([Self.write(alice, tag: Self.tag(6), key: key)])
            )
            #expect(anonymous.status == .unauthorized)
        }
    }
}

/// Distinct base64url tags for tests.
enum Base64URLTag {
    static func make(_ number: Int) -> String {
        "tag" + String(number, radix: 36) + String(repeating: "A", count: 40)
    }
}
