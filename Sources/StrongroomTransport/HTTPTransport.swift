// Strongroom — SPDX-License-Identifier: Apache-2.0

package import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StrongroomCore

/// The HTTP methods Strongroom sends (kept apart from NIO's type so callers need not import NIO).
package enum HTTPVerb: String, Sendable {
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

/// HTTP to one server: the executor the URL and trust options call for (AsyncHTTPClient, or ``NIOHTTPExecutor``),
/// timeouts, and retries of idempotent requests. Failures of the exchange itself leave as ``TransportError``;
/// errors thrown by the caller's `handle` pass through unchanged.
package struct HTTPTransport: Sendable {
    /// The server's base URL, without a trailing slash.
    package let baseURL: String
    /// Trust, timeouts and retries.
    package let options: TransportOptions
    private let executor: any HTTPExecutor
    /// Carries what `executor` cannot: `https://` URLs (a presigned file URL, say) when `executor` speaks plain HTTP.
    private let secureFallback: AsyncHTTPClientExecutor?

    /// - Parameters:
    ///   - http: carries requests to `https://` servers trusted through the system's roots, and every request when
    ///     `ownConnectionsForPlainHTTP` is false.
    ///   - ownConnectionsForPlainHTTP: send `http://` requests through ``NIOHTTPExecutor``'s kept-alive
    ///     connections instead of `http` (for the SDK's default client; a client the caller configured — a proxy,
    ///     its own timeouts — carries everything).
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when the trust roots cannot be loaded.
    package init(
        apiURL: URL,
        http: HTTPClient,
        ownConnectionsForPlainHTTP: Bool = false,
        options: TransportOptions = .init()
    ) throws(TransportError) {
        var base = apiURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.options = options
        if options.serverTrust.isCustom || options.clientIdentity != nil {
            self.secureFallback = nil
            do {
                self.executor = try NIOHTTPExecutor(trust: options.serverTrust, identity: options.clientIdentity)
            } catch {
                throw TransportError(
                    .invalidConfiguration,
                    "the trust roots or the client identity could not be loaded",
                    underlying: error
                )
            }
        } else if ownConnectionsForPlainHTTP, apiURL.scheme == "http" {
            self.executor = NIOHTTPExecutor()
            self.secureFallback = AsyncHTTPClientExecutor(http: http)
        } else {
            self.executor = AsyncHTTPClientExecutor(http: http)
            self.secureFallback = nil
        }
    }

    /// Opens one TLS connection to the server as a request would (same trust, pins and client identity), reports
    /// what it negotiated and closes it; nothing is sent.
    ///
    /// - Throws: ``TransportError/Code/untrustedServer`` when the server fails the trust,
    ///   ``TransportError/Code/invalidConfiguration`` for a URL that is not `https://`.
    package func connectionSecurity() async throws(TransportError) -> ConnectionSecurity {
        do {
            guard let url = URL(string: baseURL) else {
                throw TransportError(.invalidConfiguration, "\(baseURL) is not a URL")
            }
            let probe = try NIOHTTPExecutor(
                trust: options.serverTrust,
                identity: options.clientIdentity,
                connectTimeout: options.requestTimeout
            )
            return try await probe.probe(url, timeout: options.requestTimeout)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportFailure.describe(error, url: baseURL, presentedCertificate: presentsCertificate)
        }
    }

    /// Runs one exchange: GET and DELETE are retried with exponential back-off after connection failures and
    /// 502/503/504; POST, PUT and PATCH are sent once. `handle` gets the status and the body while the exchange is
    /// open.
    package func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws -> R {
        let idempotent = request.method == .GET || request.method == .DELETE
        var attempt = 1
        while true {
            let canRetry = idempotent && attempt < options.maximumAttempts
            let started = ContinuousClock.now
            let failure: TransportError
            do {
                let carrier: any HTTPExecutor =
                    if let secureFallback, !request.url.hasPrefix("http://") { secureFallback } else { executor }
                return try await carrier.execute(request, timeout: timeout) { status, body in
                    if canRetry, (502...504).contains(status) { throw RetryableStatus(status: status) }
                    do {
                        return try await handle(status, body)
                    } catch let failure as ResponseBody.StreamFailure {
                        throw failure  // reading the body failed: the transport's
                    } catch {
                        throw CallerFailure(error: error)
                    }
                }
            } catch let failure as CallerFailure {
                throw failure.error
            } catch let error as RetryableStatus {
                failure = TransportError(
                    .unavailable,
                    "the server is unavailable (HTTP \(error.status))",
                    status: error.status
                )
            } catch {
                let mapped = map(error, url: request.url, elapsed: ContinuousClock.now - started, timeout: timeout)
                guard canRetry, mapped.code == .unreachable else { throw mapped }
                failure = mapped
            }
            let jitter = Double.random(in: 0.8...1.2)
            do {
                try await Task.sleep(for: options.retryBackoff * (Double(1 << (attempt - 1)) * jitter))
            } catch {
                throw TransportError(
                    .cancelled,
                    "the request was cancelled while waiting to retry",
                    underlying: failure
                )
            }
            attempt += 1
        }
    }

    /// Whether requests present a client certificate.
    private var presentsCertificate: Bool { options.clientIdentity != nil }

    /// A gateway answer worth another try.
    private struct RetryableStatus: Error { let status: Int }

    /// An error the caller's `handle` threw, carried past the transport's mapping unchanged.
    private struct CallerFailure: Error { let error: any Error }

    /// The one place lower-level failures become codes.
    func map(_ error: any Error, url: String, elapsed: Duration, timeout: Duration) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case let failure as ResponseBody.StreamFailure:
            if failure.underlying is ResponseBody.ResponseTooLarge {
                return TransportError(.responseTooLarge, "the server's answer is too large")
            }
            return map(failure.underlying, url: url, elapsed: elapsed, timeout: timeout)
        case is CancellationError:
            return TransportError(.cancelled, "the request was cancelled", underlying: CancellationError())
        case NIOSSLError.unableToValidateCertificate:
            return TransportError(.untrustedServer, "the server's certificate was refused", underlying: error)
        case let error as NIOSSLError where String(describing: error).contains("CERTIFICATE_VERIFY_FAILED"):
            return TransportError(
                .untrustedServer,
                "the server's certificate is not trusted (chain, expiry or host name)",
                underlying: error
            )
        default:
            if Task.isCancelled { return TransportError(.cancelled, "the request was cancelled") }
            if elapsed >= timeout {
                return TransportError(.timedOut, "the request took longer than \(timeout)", underlying: error)
            }
            return TransportFailure.describe(error, url: url, presentedCertificate: presentsCertificate)
        }
    }
}
