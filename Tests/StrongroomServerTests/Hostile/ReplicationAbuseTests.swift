// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// What a registered client could do to others through replication (issue 72), against the real server binary on
/// both engines: long-polls that made every write slow, long-polls that took every connection, a member that claimed
/// a shared datastore, bookkeeping records past the revision cap, and declared attachments that held the quota.
@Suite struct ReplicationAbuseTests {
    static let token = "replication-abuse-token"
    static let adminToken = String(repeating: "a", count: 40)

    static func start<R>(
        _ engine: TestEngine,
        _ arguments: [String] = [],
        _ body: (ServerProcess, HTTP) async throws -> R
    ) async throws -> R {
        try await ServerProcess.withServer(
            engine: engine,
            arguments: ["--registration-token", token] + arguments,
            environment: ["STRONGROOM_ADMIN_TOKEN": adminToken]
        ) { server, _ in try await body(server, HTTP(base: server.baseURL)) }
    }

    /// The records every long-poll examined so far (`/metrics`).
    static func examined(_ http: HTTP) async throws -> Int {
        try await metric(http, "strongroom_sync_changes_examined_total")
    }

    /// A metric's value now (`/metrics`; 0 when it is not there yet).
    static func metric(_ http: HTTP, _ name: String) async throws -> Int {
        let (status, body) = try await http.send("GET", "/metrics", authorization: "Bearer \(adminToken)", body: nil)
        try #require(status == 200)
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int(Double($0.split(separator: " ").last ?? "") ?? -1) } ?? 0
    }

    /// A raw long-poll on its own connection (URLSession would queue many to one host): the request is sent at once,
    /// `answer` reads the status line's code and the body.
    static func longPoll(
        _ server: ServerProcess,
        _ client: HTTP.Client,
        type: String,
        after: Int64,
        wait: Int,
        receiveTimeout: Int = 30
    ) async throws -> RawConnection {
        let body = String(
            decoding: try JSONEncoder().encode(SyncChangesRequest(type: type, afterIndex: after, wait: wait)),
            as: UTF8.self
        )
        return try await RawConnection(
            port: server.port,
            sending: "POST /v2/sync/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(client.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            receiveTimeout: receiveTimeout
        )
    }

    static func status(of response: String) -> Int {
        Int(response.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func write(_ http: HTTP, _ client: HTTP.Client, type: String, count: Int) async throws {
        let key = AccessKey()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for number in stride(from: lane, to: count, by: 4) {
                        let written = await http.writeEncrypted(["n": "\(number)"], type: type, key: key, as: client)
                        guard written != nil else { throw TestFailure("a write of \(type) failed") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test(
        "a long-poll examines nothing of a type its caller may not read, and each record at most once when it may",
        arguments: TestEngine.available
    )
    func longPollCost(engine: TestEngine) async throws {
        try await Self.start(engine, ["--maximum-sync-wait", "3"]) { server, http in
            let alice = try await http.register(token: Self.token)
            let mallory = try await http.register(token: Self.token)
            try await Self.write(http, alice, type: "victim", count: 400)
            // Eight long-polls on alice's type, while alice writes 60 more records of it and 60 of another: before,
            // each write woke all eight and each re-ran a scan of every record of the type.
            let polls = try await (0..<8).asyncMap { _ in
                try await Self.longPoll(server, mallory, type: "victim", after: 0, wait: 3)
            }
            let started = ContinuousClock.now
            try await Self.write(http, alice, type: "victim", count: 60)
            try await Self.write(http, alice, type: "other", count: 60)
            let writing = ContinuousClock.now - started
            for poll in polls {
                let answer = try await poll.readResponse()
                #expect(Self.status(of: answer) == 200, "\(answer)")
                #expect(answer.hasSuffix("{\"last_index\":0}"), "nothing readable: \(answer)")
            }
            #expect(try await Self.examined(http) == 0, "no record of a type the caller may not read is examined")
            print("ReplicationAbuseTests: 120 writes beside 8 hostile long-polls took \(writing) (\(engine))")

            // Once mallory writes the type itself it may read something: a long-poll from the start examines each
            // record once, and one waiting past its own record examines only what is written while it waits.
            try await Self.write(http, mallory, type: "victim", count: 1)
            let first = try await Self.longPoll(server, mallory, type: "victim", after: 0, wait: 3).readResponse()
            let own = try JSONDecoder().decode(
                SyncChangesResponse.self,
                from: Data((first.components(separatedBy: "\r\n\r\n").last ?? "").utf8)
            ).lastIndex
            #expect(try await Self.examined(http) == 461, "every record of the type once, then its own")
            let waiting = try await Self.longPoll(server, mallory, type: "victim", after: own, wait: 3)
            try await Self.write(http, alice, type: "victim", count: 10)
            #expect(Self.status(of: try await waiting.readResponse()) == 200)
            let examined = try await Self.examined(http)
            #expect((461...471).contains(examined), "each new record at most once, however often it woke: \(examined)")
        }
    }

    @Test(
        "subscribers waiting on one type from one index share their looks, each answered by what it may read",
        arguments: TestEngine.available
    )
    func sharedLooks(engine: TestEngine) async throws {
        try await Self.start(engine, ["--maximum-sync-wait", "300"]) { server, http in
            let (alice, bob, carol) = (
                try await http.register(token: Self.token), try await http.register(token: Self.token),
                try await http.register(token: Self.token)
            )
            let type = "fan-out"
            try await Self.write(http, alice, type: type, count: 1)
            let policy = #"{"allow":[{"read":{}}]}"#
            let (shared, _) = try await http.send(
                "PUT",
                "/v1/storage/policy/\(alice.id)/\(alice.id)/\(bob.id)/\(type)",
                authorization: "Bearer \(alice.token)",
                body: Data(policy.utf8)
            )
            try #require(shared == 200 || shared == 201 || shared == 204, "policy: \(shared)")
            let first = try JSONDecoder().decode(
                SyncChangesResponse.self,
                from: Data(
                    (try await Self.longPoll(server, bob, type: type, after: 0, wait: 0).readResponse())
                        .components(separatedBy: "\r\n\r\n").last?.utf8 ?? "".utf8
                )
            ).lastIndex
            try #require(first > 0)
            // Five waiting on the same index: bob (shared) three times, alice (the writer), carol (nothing shared,
            // so answered at the end of her wait whenever the write lands). Not timed: the write is made once the
            // server holds all five (a loaded machine may take long to open them).
            let waiting = try await [bob, bob, bob, alice, carol].asyncMap { client in
                (
                    client.id,
                    try await Self.longPoll(
                        server,
                        client,
                        type: type,
                        after: first,
                        wait: client.id == carol.id ? 10 : 300,
                        receiveTimeout: 400
                    )
                )
            }
            for _ in 0..<3_000 {
                if try await Self.metric(http, "strongroom_sync_changes_waiting") >= 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Self.write(http, alice, type: type, count: 1)
            for (client, poll) in waiting {
                let answer = try await poll.readResponse()
                #expect(Self.status(of: answer) == 200, "\(answer)")
                let index = try JSONDecoder().decode(
                    SyncChangesResponse.self,
                    from: Data((answer.components(separatedBy: "\r\n\r\n").last ?? "").utf8)
                ).lastIndex
                if client == carol.id {
                    #expect(index == first, "carol may read nothing of the type: \(answer)")
                } else {
                    #expect(index > first, "\(client) may read the new record: \(answer)")
                }
            }
        }
    }

    @Test(
        "long-polls take at most a quarter of the connections: /health and tokens answer while every client waits",
        arguments: TestEngine.available
    )
    func longPollSlots(engine: TestEngine) async throws {
        // Long-polls wait up to ten minutes (a loaded machine may take long to open sixteen connections); the server's
        // graceful shutdown answers the admitted ones at the end.
        try await Self.start(engine, ["--maximum-connections", "16", "--maximum-sync-wait", "600"]) { server, http in
            let clients = [try await http.register(token: Self.token), try await http.register(token: Self.token)]
            // Each client's full share of long-polls (8), 16 connections: the server's cap of 16 / 4 = 4 waits.
            var polls: [RawConnection] = []
            for client in clients {
                for _ in 0..<8 {
                    polls.append(
                        try await Self.longPoll(server, client, type: "idle", after: 0, wait: 600, receiveTimeout: 900)
                    )
                }
            }
            let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for (position, poll) in polls.enumerated() {
                    group.addTask { (position, Self.status(of: try await poll.readResponse())) }
                }
                // The refused answer at once; while the admitted four still wait, /health and a token answer; then
                // the server shuts down, which answers the four.
                var statuses: [Int: Int] = [:]
                while let (position, status) = try await group.next() {
                    statuses[position] = status
                    if statuses.count == 12 {
                        #expect(statuses.values.allSatisfy { $0 == 429 }, "\(statuses)")
                        let (health, _) = try await http.send("GET", "/health", body: nil)
                        #expect(health == 200)
                        _ = try await http.token(clients[0])
                        server.beginShutdown()
                    }
                }
                return statuses
            }
            #expect(answers.values.filter { $0 == 429 }.count == 12, "\(answers)")
            #expect(answers.values.filter { $0 == 200 }.count == 4, "\(answers)")
        }
    }

    @Test(
        "a member never owns a shared datastore, whoever calls first; its writer always does",
        arguments: TestEngine.available
    )
    func ownership(engine: TestEngine) async throws {
        try await Self.start(engine) { _, http in
            let owner = try await http.register(token: Self.token)
            let member = try await http.register(token: Self.token)
            let other = try await http.register(token: Self.token)
            func access(_ caller: HTTP.Client, _ type: String, _ member: HTTP.Client) async throws -> Int {
                try await http.send(
                    "POST",
                    "/v2/sync/access",
                    token: caller.token,
                    json: SyncAccessRequest(type: type, member: member.id, access: .readWrite)
                ).0
            }
            func share(_ type: String) async throws {
                let (status, _) = try await http.send(
                    "PUT",
                    "/v1/storage/policy/\(owner.id)/\(owner.id)/\(member.id)/\(type)",
                    token: owner.token,
                    json: PolicyRequest(allow: [.init(read: [:])])
                )
                try #require(status == 201)
            }
            for round in 0..<10 {
                let type = "sr1.race-\(round)"
                if round.isMultiple(of: 2) {
                    // The owner's access call delayed past its E3DB share (the old order): the member, who now
                    // sees the type, races to claim it, many times.
                    try await share(type)
                    let claims = try await (0..<5).asyncMap { _ in try await access(member, type, other) }
                    #expect(claims.allSatisfy { $0 == 403 }, "\(claims)")
                } else {
                    // The owner wrote the type before sharing it: a stranger who guessed the name cannot claim it.
                    let checkpoint = RecordWriteRequest(
                        meta: .init(
                            writerID: owner.id,
                            userID: owner.id,
                            type: type,
                            plain: [ReplicatedType.PlainKey.checkpoint: "replica"]
                        ),
                        data: ["body": "x"]
                    )
                    let (written, _) = try await http.send(
                        "POST",
                        "/v1/storage/records",
                        token: owner.token,
                        json: checkpoint
                    )
                    try #require(written == 201)
                    #expect(try await access(other, type, member) == 403)
                }
                #expect(try await access(owner, type, member) == 200, "the owner keeps its datastore")
                #expect(try await access(member, type, other) == 403)
            }
        }
    }

    @Test(
        "a replicated type's bookkeeping records are capped like revisions, and a declared attachment holds no room",
        arguments: TestEngine.available
    )
    func bookkeepingAndQuota(engine: TestEngine) async throws {
        let arguments = ["--maximum-revision-bytes", "4096", "--sync-attachment-bytes", "1000"]
        try await Self.start(engine, arguments) { _, http in
            let alice = try await http.register(token: Self.token)
            let bob = try await http.register(token: Self.token)
            let type = "sr1.quota"
            func bookkeeping(_ bytes: Int) async throws -> Int {
                let request = RecordWriteRequest(
                    meta: .init(
                        writerID: alice.id,
                        userID: alice.id,
                        type: type,
                        plain: [ReplicatedType.PlainKey.checkpoint: "replica"]
                    ),
                    data: ["body": String(repeating: "x", count: bytes)]
                )
                return try await http.send("POST", "/v1/storage/records", token: alice.token, json: request).0
            }
            #expect(try await bookkeeping(1_000) == 201)
            #expect(try await bookkeeping(5_000) == 413, "past --maximum-revision-bytes")

            func declare(_ client: HTTP.Client, _ body: [UInt8]) async throws -> (Int, PendingFileResponse?) {
                let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
                let request = FileWriteRequest(
                    meta: .init(
                        writerID: client.id,
                        userID: client.id,
                        type: type,
                        plain: [ReplicatedType.PlainKey.attachment: "address-\(body.count)"],
                        fileMeta: FileMeta(checksum: md5, compression: "raw", size: Int64(body.count))
                    )
                )
                let (status, answer) = try await http.send(
                    "POST",
                    "/v1/storage/files",
                    token: client.token,
                    json: request
                )
                return (status, try? JSONDecoder().decode(PendingFileResponse.self, from: answer))
            }
            func upload(_ client: HTTP.Client, _ file: PendingFileResponse, _ body: [UInt8]) async throws -> Int {
                let url = try #require(URLComponents(string: file.fileURL))
                let path = url.percentEncodedPath + "?" + (url.percentEncodedQuery ?? "")
                try #require(try await http.send("PUT", path, body: Data(body)).0 == 200)
                return try await http.send(
                    "PATCH",
                    "/v1/storage/files/\(file.id)",
                    authorization: "Bearer \(client.token)",
                    body: nil
                ).0
            }
            // Bob declares 950 bytes and uploads nothing: alice's 100-byte attachment still fits.
            let held = [UInt8](repeating: 1, count: 950)
            let (bobStatus, bobFile) = try await declare(bob, held)
            #expect(bobStatus == 202)
            let small = [UInt8](repeating: 2, count: 100)
            let (aliceStatus, aliceFile) = try await declare(alice, small)
            #expect(aliceStatus == 202)
            #expect(try await upload(alice, try #require(aliceFile), small) == 201)
            // Now bob's upload arrives, but the room is taken: refused at its commit, and gone.
            #expect(try await upload(bob, try #require(bobFile), held) == 413)
            let (gone, _) = try await http.send(
                "GET",
                "/v1/storage/files/\(try #require(bobFile).id)",
                authorization: "Bearer \(bob.token)",
                body: nil
            )
            #expect(gone == 404)
            // A declaration larger than the room left is refused at once.
            #expect(try await declare(bob, [UInt8](repeating: 3, count: 901)).0 == 413)
        }
    }
}

extension Sequence {
    /// `map` with an async transform, one element after another.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
