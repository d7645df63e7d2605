// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// A server in the middle: every request goes on to the real Strongroom server, and `tamper` may rewrite the answer
/// before the client sees it — the malicious or broken server of the replication proofs. The real server does the
/// work; only what comes back is changed.
enum HostileServer {
    /// What to do with one exchange.
    enum Verdict: Sendable {
        /// Hand the client these bytes as the body (the original ones, or rewritten).
        case answer(Data)
        /// The request reached the server, but the client gets a 502 instead of its answer: a network cut after the
        /// server acted.
        case cut
        /// The client gets a 404 with E3DB's error body, as from a server without the route.
        case notFound
    }

    /// Given the request's path and body and the real server's answer, what the client gets.
    typealias Tamper = @Sendable (_ path: String, _ request: Data, _ response: Data) -> Verdict

    /// Where the proxy sends requests; a test may move it to another server (one restored from a backup, say).
    final class Upstream: Sendable {
        private let url: Mutex<String>

        init(_ url: URL) { self.url = Mutex(Self.base(url)) }

        var base: String { url.withLock { $0 } }

        func move(to url: URL) { self.url.withLock { $0 = Self.base(url) } }

        private static func base(_ url: URL) -> String {
            url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
        }
    }

    /// Given the request's method, path and body, the answer a server that never forwards it gives (200 with these
    /// bytes), or nil to forward it: a server claiming work it did not do.
    typealias Intercept = @Sendable (_ method: String, _ path: String, _ request: Data) -> Data?

    /// Runs `body` with the URL of a proxy in front of `upstream`.
    static func with(
        upstream: URL,
        intercept: Intercept? = nil,
        tamper: @escaping Tamper,
        _ body: @escaping @Sendable (URL) async throws -> Void
    ) async throws {
        try await with(upstream: Upstream(upstream), intercept: intercept, tamper: tamper, body)
    }

    /// Runs `body` with the URL of a proxy in front of wherever `upstream` points at each request.
    static func with(
        upstream: Upstream,
        intercept: Intercept? = nil,
        tamper: @escaping Tamper,
        _ body: @escaping @Sendable (URL) async throws -> Void
    ) async throws {
        let responder = CallbackResponder { (request: Request, _: BasicRequestContext) -> Response in
            let base = upstream.base
            let uri = request.uri.description
            let requestBody = Data(try await request.body.collect(upTo: 32 << 20).readableBytesView)
            if let faked = intercept?(request.method.rawValue, request.uri.path, requestBody) {
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: faked)))
            }
            var forward = HTTPClientRequest(url: base + uri)
            forward.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headers
            where ![HTTPField.Name.contentLength, .connection].contains(field.name) {
                forward.headers.add(name: field.name.rawName, value: field.value)
            }
            if !requestBody.isEmpty { forward.body = .bytes(ByteBuffer(bytes: requestBody)) }
            let answer = try await HTTPClient.shared.execute(forward, timeout: .seconds(600))
            let answerBody = Data(try await answer.body.collect(upTo: 64 << 20).readableBytesView)
            var headers = HTTPFields()
            if let type = answer.headers.first(name: "Content-Type") { headers[.contentType] = type }
            switch tamper(request.uri.path, requestBody, answerBody) {
            case .answer(let bytes):
                return Response(
                    status: .init(code: Int(answer.status.code)),
                    headers: headers,
                    body: .init(byteBuffer: ByteBuffer(bytes: bytes))
                )
            case .cut:
                return Response(status: .badGateway, body: .init(byteBuffer: ByteBuffer(string: "cut")))
            case .notFound:
                headers[.contentType] = "application/json"
                return Response(
                    status: .notFound,
                    headers: headers,
                    body: .init(byteBuffer: ByteBuffer(string: #"{"code":"not_found","message":"no such route"}"#))
                )
            }
        }
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0))
        )
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
        }
    }

    /// A search answer's JSON, rewritten by `change` (answers of other routes pass unchanged).
    static func rewritingSearch(_ change: @escaping @Sendable (inout [String: Any]) -> Void) -> Tamper {
        { path, _, response in
            guard path == "/v1/storage/search",
                var object = (try? JSONSerialization.jsonObject(with: response)) as? [String: Any],
                (object["results"] as? [Any])?.isEmpty == false
            else { return .answer(response) }
            change(&object)
            return .answer((try? JSONSerialization.data(withJSONObject: object)) ?? response)
        }
    }
}
