// Strongroom — SPDX-License-Identifier: Apache-2.0

import AsyncHTTPClient
import Foundation
import NIOCore
import StrongroomCore
import StrongroomTransport
import StrongroomWire

/// The SDK's JSON layer over ``HTTPTransport``: E3DB requests and answers, and the one mapping of transport
/// failures to ``ClientError``.
struct Transport: Sendable {
    let http: HTTPTransport
    static let maximumResponse = 64 << 20

    var baseURL: String { http.baseURL }
    var options: TransportOptions { http.options }

    init(apiURL: URL, http client: HTTPClient, options: TransportOptions = .init()) throws(ClientError) {
        do {
            self.http = try HTTPTransport(
                apiURL: apiURL,
                http: client,
                callerSupplied: client !== Client.defaultHTTPClient,
                ownConnectionsForPlainHTTP: client === Client.defaultHTTPClient,
                options: options
            )
        } catch {
            throw ClientError(error)
        }
    }

    /// Sends a request and returns the status and body.
    func send(
        _ method: HTTPVerb,
        _ path: String,
        headers: [(String, String)] = [],
        body: Data? = nil,
        form: String? = nil
    ) async throws(ClientError) -> (status: Int, body: ByteBuffer) {
        let (head, buffer) = try await answer(method, path, headers: headers, body: body, form: form)
        return (head.status, buffer)
    }

    /// Sends a request and returns the answer's head (status and header fields) and body.
    func answer(
        _ method: HTTPVerb,
        _ path: String,
        headers: [(String, String)] = [],
        body: Data? = nil,
        form: String? = nil
    ) async throws(ClientError) -> (head: ResponseHead, body: ByteBuffer) {
        var request = OutgoingRequest(method: method, url: baseURL + path)
        for (name, value) in headers { request.addHeader(name, value) }
        if let body {
            request.addHeader("Content-Type", "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        } else if let form {
            request.body = .bytes(ByteBuffer(string: form))
        }
        let timeout = options.requestTimeout
        do {
            return try await http.exchange(request, timeout: timeout) { (head: ResponseHead, body: ResponseBody) in
                (head, try await body.collect(upTo: Self.maximumResponse))
            }
        } catch {
            throw Self.clientError(error)
        }
    }

    /// Runs one exchange (retries as ``HTTPTransport`` does); every failure leaves as a ``ClientError``, and those
    /// `handle` throws pass through unchanged.
    func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws(ClientError) -> R {
        do {
            return try await http.exchange(request, timeout: timeout, handle)
        } catch {
            throw Self.clientError(error)
        }
    }

    /// The one mapping of an exchange's failure to a ``ClientError`` (one `handle` threw passes unchanged).
    private static func clientError(_ error: any Error) -> ClientError {
        switch error {
        case let error as ClientError: error
        case let error as TransportError: ClientError(error)
        case is CancellationError: ClientError(.cancelled, "the request was cancelled", underlying: CancellationError())
        default: ClientError(.transport, "the exchange failed: \(type(of: error))", underlying: error)
        }
    }

    /// Decodes a JSON answer; anything else is ``ClientError/Code/invalidResponse``. A record answer in the shape
    /// the server writes is read by its scanner first (``PlainJSONReadable``); anything else goes to `JSONDecoder`.
    static func decode<Response: Decodable>(_ type: Response.Type, from data: Data) throws(ClientError) -> Response {
        if let readable = Response.self as? any PlainJSONReadable.Type,
            let value = data.withUnsafeBytes({ readable.plainJSON($0.assumingMemoryBound(to: UInt8.self)) }),
            let value = value as? Response
        {
            return value
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw ClientError(.invalidResponse, "the server's answer is not the expected JSON", underlying: error)
        }
    }

    /// Sends JSON and expects one of `success`; returns the raw body and the answer's key generation
    /// (`X-Strongroom-Key-Generation`, nil when absent or not a generation). `authorization` is the whole
    /// header value; `headers` are sent besides it.
    func expect(
        _ method: HTTPVerb,
        _ path: String,
        authorization: String?,
        headers extra: [(String, String)] = [],
        body: (some Encodable)?,
        success: Set<Int>
    ) async throws(ClientError) -> (data: Data, keyGeneration: Int?) {
        var encoded: Data?
        if let request = body as? RecordWriteRequest {
            encoded = Data(request.jsonText.utf8)  // every record write and update: written by hand
        } else if let request = body as? RecordRewrapRequest {
            encoded = Data(request.jsonText.utf8)  // a re-wrap's pages of 1,000 records: written by hand
        } else if let body {
            do {
                encoded = try JSONEncoder().encode(body)
            } catch {
                throw ClientError(.invalidConfiguration, "the request could not be encoded", underlying: error)
            }
        }
        let headers = (authorization.map { [("Authorization", $0)] } ?? []) + extra
        let (head, buffer) = try await answer(method, path, headers: headers, body: encoded)
        let data = Data(buffer.readableBytesView)
        let generation = head.field(StrongroomHeader.keyGeneration).flatMap(KeyGeneration.parse)
        guard success.contains(head.status) else {
            // Servers other than Strongroom may answer errors without a JSON body: fall back to the status.
            let body = try? JSONDecoder().decode(ErrorBody.self, from: data)
            let message = body?.error ?? "HTTP \(head.status)"
            var error = ClientError.status(
                head.status,
                code: body?.code,
                message: "\(method) \(Self.route(path)): \(message)"
            )
            error.serverCode = body?.code
            error.keyGeneration = generation
            throw error
        }
        return (data, generation)
    }

    /// The path without IDs, for messages (`/v1/storage/records/…`).
    static func route(_ path: String) -> String {
        path.split(separator: "/").prefix(3).joined(separator: "/").prepending("/") + "/…"
    }
}

/// A percent-encoded path segment (record types may hold any character).
func segment(_ text: String) -> String { E3DBPath.encodeSegment(text) }

extension String {
    fileprivate func prepending(_ prefix: String) -> String { prefix + self }
}

extension ClientError {
    /// The one place transport failures become client codes.
    init(_ error: TransportError, fileID: String = #fileID, line: Int = #line) {
        let code: Code =
            switch error.code {
            case .invalidConfiguration: .invalidConfiguration
            case .timedOut: .timedOut
            case .cancelled: .cancelled
            case .untrustedServer: .untrustedServer
            case .unavailable: .server
            case .responseTooLarge: .invalidResponse
            case .clientCertificateRefused: .unauthorized
            default: .transport
            }
        self.init(code, error.message, status: error.status, underlying: error, fileID: fileID, line: line)
    }
}
