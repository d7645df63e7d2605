// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import StrongroomClient

/// Retries happen only for idempotent requests: a flaky gateway (503 twice, then 200) is invisible to a GET and
/// surfaces at once for a POST, which is never sent twice.
@Suite struct TransportRetryTests {
    /// Requests seen per method.
    final class Hits: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func record(_ method: String) -> Int {
            counts.withLock { counts in
                counts[method, default: 0] += 1
                return counts[method, default: 0]
            }
        }
        var all: [String: Int] { counts.withLock { $0 } }
    }

    private func withFlakyServer(_ body: @escaping @Sendable (URL, Hits) async throws -> Void) async throws {
        let hits = Hits()
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .delete] {
            router.on("/flaky", method: method) { request, _ -> Response in
                let count = hits.record(request.method.rawValue)
                return Response(
                    status: count <= 2 ? .serviceUnavailable : .ok,
                    body: .init(byteBuffer: .init(string: "{}"))
                )
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)")), hits)
        }
    }

    @Test("GET and DELETE are retried after 503 with back-off; POST is sent once and reports the 503")
    func idempotentOnly() async throws {
        try await withFlakyServer { url, hits in
            let options = Client.TransportOptions(maximumAttempts: 3, retryBackoff: .milliseconds(10))
            let transport = try Transport(apiURL: url, http: Client.defaultHTTPClient, options: options)
            #expect(try await transport.send(.GET, "/flaky").status == 200)
            #expect(try await transport.send(.DELETE, "/flaky").status == 200)
            let (status, _) = try await transport.send(.POST, "/flaky", body: Data("{}".utf8))
            #expect(status == 503)
            #expect(hits.all == ["GET": 3, "DELETE": 3, "POST": 1])
        }
    }

    @Test("a GET gives up after maximumAttempts and reports the last 503")
    func givesUp() async throws {
        try await withFlakyServer { url, hits in
            let options = Client.TransportOptions(maximumAttempts: 2, retryBackoff: .milliseconds(10))
            let transport = try Transport(apiURL: url, http: Client.defaultHTTPClient, options: options)
            let error = await #expect(throws: ClientError.self) {
                try await transport.expect(.GET, "/flaky", authorization: nil, body: nil as String?, success: [200])
            }
            #expect(error?.code == .server && error?.status == 503)
            #expect(hits.all["GET"] == 2)
        }
    }
}
