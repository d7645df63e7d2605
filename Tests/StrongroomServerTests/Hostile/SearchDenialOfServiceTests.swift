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

/// v2 search cannot freeze the server or grow its memory with the caller's data: matching is linear (RE2, banded
/// edit distance), terms and clauses are capped, each search has a work budget, and only a page is kept.
@Suite struct SearchDenialOfServiceTests {
    static func write(
        _ api: API,
        _ client: RegisteredClient,
        type: String = "dos",
        plain: [String: String],
        size: Int = 8
    )
        async throws -> RecordResponse
    {
        let request = RecordWriteRequest(
            meta: .init(writerID: client.clientID, userID: client.clientID, type: type, plain: plain),
            data: FieldCipher.encrypt(fields: ["f": String(repeating: "x", count: size)], with: AccessKey())
        )
        let response = try await api.request(.post, "/v1/storage/records", token: client.token, json: request)
        guard response.status == .created else { throw TestFailure("write answered \(response.status)") }
        return try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: response.body))
    }

    static func search(_ api: API, _ client: RegisteredClient, _ body: String) async throws -> TestResponse {
        try await api.request(.post, "/v2/search", authorization: "Bearer \(client.token)", body: body)
    }

    static func health(_ api: API) async throws -> Bool {
        try await api.request(.get, "/health").status == .ok
    }

    @Test(
        "catastrophic REGEXP, long FUZZY and WILDCARD terms answer at once; /health stays up",
        arguments: TestEngine.available
    )
    func pathologicalTerms(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            _ = try await Self.write(api, client, plain: ["v": String(repeating: "a", count: 20) + "!"])
            _ = try await Self.write(api, client, plain: ["long": String(repeating: "ab", count: 20_000)])
            let queries = [
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a+)+"]}}]}"#,
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a|aa)*b"]}}]}"#,
                "{\"match\": [{\"strategy\": \"FUZZY\", \"terms\": {\"values\": [\"\(String(repeating: "ab", count: 500))\"]}}]}",
                "{\"match\": [{\"strategy\": \"WILDCARD\", \"terms\": {\"values\": [\"\(String(repeating: "*a", count: 500))\"]}}]}",
            ]
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for query in queries + queries { group.addTask { try await Self.search(api, client, query).status } }
                for try await status in group { #expect(status == .ok) }
            }
            #expect(try await Self.health(api))
            // (a+)+ still means what it says.
            let hit = try await Self.search(
                api,
                client,
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a+)+!"]}}]}"#
            )
            #expect(try JSONDecoder().decode(SearchV2Response.self, from: Data(buffer: hit.body)).totalResults == 1)
        }
    }

    @Test(
        "oversize terms, too many clauses or terms, invalid or backtracking-only regexps → 400",
        arguments: TestEngine.available
    )
    func refusedTerms(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let manyClauses =
                "[" + Array(repeating: #"{"terms": {"values": ["x"]}}"#, count: 33).joined(separator: ",") + "]"
            let manyTerms = "[" + Array(repeating: "\"x\"", count: 257).joined(separator: ",") + "]"
            for body in [
                "{\"match\": [{\"terms\": {\"values\": [\"\(String(repeating: "a", count: 1025))\"]}}]}",
                "{\"match\": \(manyClauses)}",
                "{\"match\": [{\"terms\": {\"values\": \(manyTerms)}}]}",
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a"]}}]}"#,
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["(a)\\1"]}}]}"#,
                #"{"match": [{"strategy": "REGEXP", "terms": {"values": ["((((a{100}){100}){100}){100})"]}}]}"#,
                #"{"match": [{"strategy": "SOUNDEX", "terms": {"values": ["a"]}}]}"#,
            ] {
                let response = try await Self.search(api, client, body)
                #expect(response.status == .badRequest, "\(body.prefix(80))")
            }
            #expect(try await Self.health(api))
        }
    }

    @Test("a search past its work budget is a 400 naming the problem, not a stall", arguments: TestEngine.available)
    func workBudget(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.searchWorkUnits = 4096
        try await TestServer.run(engine: engine, limits: limits) { api in
            let client = try await api.register()
            for index in 0..<20 {
                _ = try await Self.write(api, client, plain: ["n": "\(index)" + String(repeating: "z", count: 300)])
            }
            let response = try await Self.search(
                api,
                client,
                #"{"match": [{"strategy": "WILDCARD", "terms": {"values": ["*q*"]}}]}"#
            )
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains("search_too_broad"))
            #expect(try await Self.health(api))
        }
    }

    @Test(
        "pages are cut to the response's byte budget; the caller pages on and gets every record once",
        arguments: TestEngine.available
    )
    func responseBudget(engine: TestEngine) async throws {
        var limits = ServerLimits()
        limits.searchResponseDataBytes = 3000
        try await TestServer.run(engine: engine, limits: limits) { api in
            let client = try await api.register()
            var written: Set<String> = []
            for _ in 0..<5 { written.insert(try await Self.write(api, client, plain: [:], size: 1200).meta.recordID) }

            // v1: include_data pages end early, last_index continues.
            var seen: [String] = []
            var after: Int64 = 0
            while true {
                let page = try await api.request(
                    .post,
                    "/v1/storage/search",
                    token: client.token,
                    json: SearchRequest(count: 50, afterIndex: after, includeData: true)
                )
                let decoded = try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: page.body))
                if decoded.results.isEmpty { break }
                #expect(decoded.results.count <= 2, "a page holds at most what fits in 3000 bytes (at least one)")
                #expect(decoded.results.allSatisfy { $0.recordData?.isEmpty == false })
                seen += decoded.results.map(\.meta.recordID)
                after = decoded.lastIndex
            }
            #expect(Set(seen) == written)
            #expect(seen.count == written.count)

            // v2: limit 1 keeps one record however many match; total_results still counts them all.
            let one = try await Self.search(api, client, #"{"limit": 1, "include_data": true}"#)
            let decoded = try JSONDecoder().decode(SearchV2Response.self, from: Data(buffer: one.body))
            #expect(decoded.results.count == 1)
            #expect(decoded.totalResults == 5)
            #expect(decoded.lastIndex == 1)
            let big = try await Self.search(api, client, #"{"limit": 1000, "include_data": true}"#)
            let cut = try JSONDecoder().decode(SearchV2Response.self, from: Data(buffer: big.body))
            #expect((1...2).contains(cut.results.count))
            #expect(cut.lastIndex == cut.results.count)
        }
    }
}
