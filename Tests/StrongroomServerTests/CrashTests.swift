// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// SIGKILL during a burst of concurrent writes loses no acknowledged write.
@Suite struct CrashTests {
    static let writers = 8
    static let acknowledgedBeforeKill = 120

    @Test("no acknowledged write is lost when the server is killed mid-burst", arguments: TestEngine.available)
    func sigkillDuringWrites(engine: TestEngine) async throws {
        let token = "crash-test-token"
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", token]) {
            server,
            arguments in
            try await run(server, arguments: arguments, token: token)
        }
    }

    private func run(_ server: ServerProcess, arguments: [String], token: String) async throws {
        let http = HTTP(base: server.baseURL)
        let client = try await http.register(token: token)
        let key = AccessKey()
        let acknowledged = Acknowledged()

        // Writers run until the server dies; every 201 is recorded with the ciphertext it carried.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    var index = 0
                    while let (id, data) = await http.writeEncrypted(
                        ["n": "\(writer)-\(index)"],
                        type: "crash",
                        key: key,
                        as: client
                    ) {  // until the server dies
                        await acknowledged.add(id, data)
                        index += 1
                    }
                }
            }
            group.addTask {
                // Kill once enough writes were acknowledged (a count, not a timer).
                while await acknowledged.count < Self.acknowledgedBeforeKill { await Task.yield() }
                server.kill()
            }
            try await group.waitForAll()
        }
        #expect(!server.isRunning)

        let restarted = try await ServerProcess(arguments: arguments)
        defer { restarted.stop() }
        let again = HTTP(base: restarted.baseURL)
        let token2 = try await again.token(client)
        let written = await acknowledged.all
        #expect(written.count >= Self.acknowledgedBeforeKill)
        // Everything the server acknowledged is back; writes that were in flight may or may not be.
        let stored = try await again.send(
            "POST",
            "/v1/storage/search",
            token: token2,
            json: SearchRequest(count: 1000, contentTypes: ["crash"])
        )
        let found = try JSONDecoder().decode(SearchResponse.self, from: stored.1).results.count
        #expect(found >= written.count)
        print("crash test: \(written.count) writes acknowledged before SIGKILL, \(found) stored after restart")
        for (id, data) in written {
            let (status, body) = try await again.send(
                "GET",
                "/v1/storage/records/\(id)",
                token: token2,
                json: nil as String?
            )
            #expect(status == 200, "acknowledged record \(id) is missing after the crash")
            if status == 200 {
                #expect(try JSONDecoder().decode(RecordResponse.self, from: body).data == data)
            }
        }
    }
}

/// The writes the server acknowledged.
actor Acknowledged {
    private var records: [String: [String: String]] = [:]
    func add(_ id: String, _ data: [String: String]) { records[id] = data }
    var count: Int { records.count }
    var all: [String: [String: String]] { records }
}
