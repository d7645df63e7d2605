// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

/// The three one-request crashes from the security review, sent to the real `strongroom-server` executable: each
/// gets a typed 4xx, and the same process answers `/health` within a second afterwards.
@Suite struct CrashInputTests {
    @Test(
        "TSV1 Int64.min timestamp, max_views 1e300, next_token Int64.max: 4xx, server alive",
        arguments: TestEngine.available
    )
    func crashInputs(engine: TestEngine) async throws {
        let token = String(repeating: "c", count: 40)
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", token]) { server, _ in
            try await run(server, token: token)
        }
    }

    private func run(_ server: ServerProcess, token: String) async throws {
        let http = HTTP(base: server.baseURL)

        // 1. The timestamp overflow, on a storage route and on notes, without an account.
        let header = HostileRequests.minimumTimestampHeader()
        #expect(try await http.raw("GET", "/v1/storage/policy/outgoing", authorization: header) == 401)
        #expect(try await http.raw("POST", "/v2/storage/notes", authorization: header, body: "{}") == 401)
        #expect(await http.isHealthyWithinOneSecond())

        // 2. max_views beyond Int64, negative beyond it, fractional, and not a number: 400, anonymously.
        for maxViews in ["1e300", "-1e300", "1.5", "9223372036854775808", "\"3\"", "1e19", "[1]"] {
            let writer = SigningPrivateKey()
            let status = try await http.raw(
                "POST",
                "/v2/storage/notes",
                authorization: HostileRequests.anonymousNoteHeader(writer: writer),
                body: HostileRequests.noteBody(writer: writer, maxViews: maxViews)
            )
            #expect(status == 400, "max_views \(maxViews)")
        }
        #expect(await http.isHealthyWithinOneSecond())

        // 3. next_token at Int64.max, and a window past the limit.
        let client = try await http.register(token: token)
        for body in [
            "{\"next_token\": 9223372036854775807, \"limit\": 1000}",
            "{\"next_token\": 9223372036854775807}",
            "{\"next_token\": 9500, \"limit\": 1000}",
            "{\"next_token\": -1}",
            "{\"limit\": 9223372036854775807}",
        ] {
            let status = try await http.raw("POST", "/v2/search", authorization: "Bearer \(client.token)", body: body)
            #expect(status == 400, "\(body)")
        }
        #expect(await http.isHealthyWithinOneSecond())

        // 4. The search inputs that froze the server: (a+)+ against 20 a's and a '!', twice at once.
        let write = RecordWriteRequest(
            meta: .init(
                writerID: client.id,
                userID: client.id,
                type: "dos",
                plain: ["v": String(repeating: "a", count: 20) + "!"]
            ),
            data: FieldCipher.encrypt(fields: ["f": "x"], with: AccessKey())
        )
        #expect(try await http.send("POST", "/v1/storage/records", token: client.token, json: write).0 == 201)
        let regexp = #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a+)+"]}}]}"#
        async let first = http.raw("POST", "/v2/search", authorization: "Bearer \(client.token)", body: regexp)
        async let second = http.raw("POST", "/v2/search", authorization: "Bearer \(client.token)", body: regexp)
        #expect(await http.isHealthyWithinOneSecond())
        #expect(try await [first, second] == [200, 200])
        #expect(await http.isHealthyWithinOneSecond())
        #expect(server.isRunning)
    }
}
