// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// PostgreSQL stopped and started again under a burst of writes: requests in flight fail cleanly (503 with the
/// error body, never a hang or a dropped connection), `/ready` says so, the server recovers without a restart, and
/// every write it acknowledged is there afterwards.
@Suite(.enabled(if: TestEngine.available.contains(.postgres), "needs PostgreSQL"))
struct PostgresRestartTests {
    static let writers = 4
    /// Acknowledged writes before the stop, and again after the restart (counts, not timers).
    static let acknowledgedPerPhase = 40

    @Test("a PostgreSQL restart under load: 503s while it is down, recovery without a server restart, nothing lost")
    func restartUnderLoad() async throws {
        try await withTemporaryDirectory { directory in
            try await PostgresCluster.with(in: directory, port: 55339) { url, cluster in
                try await check(url: url, directory: directory, cluster: cluster)
            }
        }
    }

    private func check(url: String, directory: URL, cluster: PostgresCluster) async throws {
        let token = "restart-test-token"
        let server = try await ServerProcess(arguments: [
            "--data-directory", directory.appending(path: "data").path, "--database-url", url,
            "--registration-token", token,
        ])
        defer { server.stop() }
        let http = HTTP(base: server.baseURL)
        let client = try await http.register(token: token)
        let key = AccessKey()
        let outcomes = Outcomes()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    var index = 0
                    while await !outcomes.isFinished {
                        let data = FieldCipher.encrypt(fields: ["n": "\(writer)-\(index)"], with: key)
                        let body = RecordWriteRequest(
                            meta: .init(writerID: client.id, userID: client.id, type: "restart", plain: nil),
                            data: data
                        )
                        index += 1
                        let (status, response) = try await http.send(
                            "POST",
                            "/v1/storage/records",
                            token: client.token,
                            json: body
                        )
                        switch status {
                        case 201:
                            let record = try JSONDecoder().decode(RecordResponse.self, from: response)
                            await outcomes.acknowledge(record.meta.recordID, data)
                        case 503 where (try? JSONDecoder().decode(ErrorBody.self, from: response)) != nil:
                            await outcomes.refuse()
                        default:
                            await outcomes.unexpected(
                                "\(status): \(String(decoding: response.prefix(300), as: UTF8.self))"
                            )
                        }
                    }
                }
            }
            try await outcomes.waitUntil { $0.acknowledged.count >= Self.acknowledgedPerPhase }
            _ = try await cluster.run("halt")
            try await outcomes.waitUntil { $0.refused >= Self.writers }
            let none: String? = nil
            #expect(try await http.send("GET", "/ready", json: none).0 == 503)
            let before = await outcomes.acknowledged.count
            _ = try await cluster.run("resume")
            try await outcomes.waitUntil { $0.acknowledged.count >= before + Self.acknowledgedPerPhase }
            await outcomes.finish()
            try await group.waitForAll()
        }

        let unexpected = await outcomes.unexpectedAnswers
        #expect(unexpected.isEmpty, "answers other than 201 and 503: \(unexpected.prefix(5))")
        let none: String? = nil
        #expect(try await http.send("GET", "/ready", json: none).0 == 200)
        let written = await outcomes.acknowledged
        let refused = await outcomes.refused
        print("PostgreSQL restart: \(written.count) writes acknowledged, \(refused) refused with 503 while it was down")
        for (id, data) in written {
            let (status, body) = try await http.send(
                "GET",
                "/v1/storage/records/\(id)",
                token: client.token,
                json: none
            )
            #expect(status == 200, "acknowledged record \(id) is missing after the restart")
            if status == 200 { #expect(try JSONDecoder().decode(RecordResponse.self, from: body).data == data) }
        }
    }
}

/// What the writers saw.
private actor Outcomes {
    private(set) var acknowledged: [String: [String: String]] = [:]
    private(set) var refused = 0
    private(set) var unexpectedAnswers: [String] = []
    private(set) var isFinished = false

    func acknowledge(_ id: String, _ data: [String: String]) { acknowledged[id] = data }
    func refuse() { refused += 1 }
    func unexpected(_ answer: String) { unexpectedAnswers.append(answer) }
    func finish() { isFinished = true }

    /// Waits until `condition` holds (polled; bounded at 5 minutes so a hang fails instead of stalling CI).
    func waitUntil(_ condition: @Sendable (isolated Outcomes) -> Bool) async throws {
        for _ in 0..<3000 {
            if condition(self) { return }
            if !unexpectedAnswers.isEmpty { throw TestFailure("unexpected answer: \(unexpectedAnswers[0])") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("the writers did not get there in 5 minutes")
    }
}
