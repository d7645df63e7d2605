// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrongroomWire

/// The HTTP methods E3DB uses (kept apart from NIO's type so callers need not import NIO).
enum Verb: String, Sendable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case GET, POST, PUT, PATCH, DELETE

    var method: HTTPMethod {
        switch self {
        case .GET: .GET
        case .POST: .POST
        case .PUT: .PUT
        case .PATCH: .PATCH
        case .DELETE: .DELETE
        }
    }
}

/// HTTP to an E3DB server: JSON in and out, one mapping of failures to ``ClientError``.
struct Transport: Sendable {
    let baseURL: String
    let http: HTTPClient
    let timeout: TimeAmount = .seconds(60)
    static let maximumResponse = 64 << 20

    init(apiURL: URL, http: HTTPClient) {
        var base = apiURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
    }

    /// Sends a request and returns the status and body, mapping transport failures and cancellation.
    func send(
        _ method: Verb,
        _ path: String,
        headers: [(String, String)] = [],
        body: Data? = nil,
        form: String? = nil
    ) async throws(ClientError) -> (status: Int, body: ByteBuffer) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method.method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        } else if let form {
            request.body = .bytes(ByteBuffer(string: form))
        }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let data = try await response.body.collect(upTo: Self.maximumResponse)
            return (Int(response.status.code), data)
        } catch is CancellationError {
            throw ClientError(.cancelled, "the request was cancelled", underlying: CancellationError())
        } catch {
            if Task.isCancelled { throw ClientError(.cancelled, "the request was cancelled") }
            throw ClientError(.transport, "the server could not be reached: \(type(of: error))", underlying: error)
        }
    }

    /// Sends a prepared request (file uploads) and returns its status, draining the answer.
    func execute(_ request: HTTPClientRequest) async throws(ClientError) -> Int {
        do {
            let response = try await http.execute(request, timeout: timeout)
            _ = try await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        } catch is CancellationError {
            throw ClientError(.cancelled, "the request was cancelled", underlying: CancellationError())
        } catch {
            if Task.isCancelled { throw ClientError(.cancelled, "the request was cancelled") }
            throw ClientError(.transport, "the server could not be reached: \(type(of: error))", underlying: error)
        }
    }

    /// Decodes a JSON answer; anything else is ``ClientError/Code/invalidResponse``.
    static func decode<Response: Decodable>(_ type: Response.Type, from data: Data) throws(ClientError) -> Response {
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw ClientError(.invalidResponse, "the server's answer is not the expected JSON", underlying: error)
        }
    }

    /// Sends JSON and expects one of `success`; returns the raw body. `authorization` is the whole header value.
    @discardableResult
    func expect(
        _ method: Verb,
        _ path: String,
        authorization: String?,
        body: (some Encodable)?,
        success: Set<Int>
    ) async throws(ClientError) -> Data {
        var encoded: Data?
        if let body {
            do {
                encoded = try JSONEncoder().encode(body)
            } catch {
                throw ClientError(.invalidConfiguration, "the request could not be encoded", underlying: error)
            }
        }
        let headers = authorization.map { [("Authorization", $0)] } ?? []
        let (status, buffer) = try await send(method, path, headers: headers, body: encoded)
        let data = Data(buffer.readableBytesView)
        guard success.contains(status) else {
            // Servers other than Strongroom may answer errors without a JSON body: fall back to the status.
            let message = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.error ?? "HTTP \(status)"
            throw ClientError.status(status, message: "\(method) \(Self.route(path)): \(message)")
        }
        return data
    }

    /// The path without IDs, for messages (`/v1/storage/records/…`).
    static func route(_ path: String) -> String {
        path.split(separator: "/").prefix(3).joined(separator: "/").prepending("/") + "/…"
    }
}

/// A percent-encoded path segment (record types may hold any character).
func segment(_ text: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/?#")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

extension String {
    fileprivate func prepending(_ prefix: String) -> String { prefix + self }
}
