// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
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

/// HTTP to an E3DB server: JSON in and out, retries where idempotent, one mapping of failures to ``ClientError``.
struct Transport: Sendable {
    let baseURL: String
    let executor: any HTTPExecutor
    let options: Client.TransportOptions
    static let maximumResponse = 64 << 20

    init(apiURL: URL, http: HTTPClient, options: Client.TransportOptions = .init()) throws(ClientError) {
        var base = apiURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.options = options
        if options.serverTrust.isCustom {
            do {
                self.executor = try PinningHTTPExecutor(trust: options.serverTrust)
            } catch {
                throw ClientError(.invalidConfiguration, "the trust roots could not be loaded", underlying: error)
            }
        } else {
            self.executor = AsyncHTTPClientExecutor(http: http)
        }
    }

    /// Sends a request and returns the status and body.
    func send(
        _ method: Verb,
        _ path: String,
        headers: [(String, String)] = [],
        body: Data? = nil,
        form: String? = nil
    ) async throws(ClientError) -> (status: Int, body: ByteBuffer) {
        var request = OutgoingRequest(method: method, url: baseURL + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        } else if let form {
            request.body = .bytes(ByteBuffer(string: form))
        }
        return try await exchange(request, timeout: options.requestTimeout) { status, body in
            (status, try await body.collect(upTo: Self.maximumResponse))
        }
    }

    /// Runs one exchange: idempotent methods are retried with exponential back-off after connection failures and
    /// 502/503/504; every failure leaves as a ``ClientError`` (those `handle` throws pass through unchanged).
    func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws(ClientError) -> R {
        let idempotent = request.method == .GET || request.method == .DELETE
        var attempt = 1
        while true {
            let canRetry = idempotent && attempt < options.maximumAttempts
            let started = ContinuousClock.now
            let failure: ClientError
            do {
                return try await executor.execute(request, timeout: timeout) { status, body in
                    if canRetry, (502...504).contains(status) { throw RetryableStatus(status: status) }
                    return try await handle(status, body)
                }
            } catch let error as RetryableStatus {
                failure = ClientError.status(error.status, message: "the server is unavailable (HTTP \(error.status))")
            } catch {
                let mapped = Self.map(error, elapsed: ContinuousClock.now - started, timeout: timeout)
                guard canRetry, mapped.code == .transport else { throw mapped }
                failure = mapped
            }
            let jitter = Double.random(in: 0.8...1.2)
            do {
                try await Task.sleep(for: options.retryBackoff * (Double(1 << (attempt - 1)) * jitter))
            } catch {
                throw ClientError(.cancelled, "the request was cancelled while waiting to retry", underlying: failure)
            }
            attempt += 1
        }
    }

    /// A gateway answer worth another try.
    private struct RetryableStatus: Error { let status: Int }

    /// The one place lower-level failures become codes.
    static func map(_ error: any Error, elapsed: Duration, timeout: Duration) -> ClientError {
        switch error {
        case let error as ClientError:
            return error
        case is CancellationError:
            return ClientError(.cancelled, "the request was cancelled", underlying: CancellationError())
        case is PinningHTTPExecutor.PinMismatch, NIOSSLError.unableToValidateCertificate:
            return ClientError(.untrustedServer, "the server presented a key that is not pinned", underlying: error)
        case let error as NIOSSLError where String(describing: error).contains("CERTIFICATE_VERIFY_FAILED"):
            return ClientError(
                .untrustedServer,
                "the server's certificate is not trusted (chain, expiry or host name)",
                underlying: error
            )
        default:
            if Task.isCancelled { return ClientError(.cancelled, "the request was cancelled") }
            if elapsed >= timeout {
                return ClientError(.timedOut, "the request took longer than \(timeout)", underlying: error)
            }
            return ClientError(.transport, "the server could not be reached: \(type(of: error))", underlying: error)
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
