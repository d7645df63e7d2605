// Strongroom — SPDX-License-Identifier: Apache-2.0
public import AsyncHTTPClient
public import Foundation
public import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL
import StrongroomCore

/// An HTTP client for any server, with the Strongroom SDK's protections: the server verified inside the TLS
/// handshake (custom roots, per-host SPKI pins on any key of the chain), a client certificate shown only to a
/// server that passed, per-request deadlines, retries of idempotent requests, and optional TSV1 request signing.
///
/// It is the channel the SDK's own requests travel on, and the one an app uses for its own backend:
///
/// ```swift
/// let channel = try SecureChannel(
///     configuration: .init(
///         serverTrust: ServerTrust(roots: .certificates([backendCA]), hostPins: ["api.example.com": [pin, backupPin]]),
///         clientIdentity: identity,
///         signer: .tsv1(clientID: clientID, signingKey: signingKey)
///     )
/// )
/// let response = try await channel.send(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/me"))
/// ```
///
/// ## Which connections carry the requests
/// - With a custom ``ServerTrust`` or a ``ClientIdentity``: the channel's own connections, because the verification
///   runs in the handshake, before the client certificate or a byte of the request is sent. HTTP/2 when the server
///   offers it (one connection per host, every request on a stream of its own), else HTTP/1.1 (kept alive and
///   reused). Only `https://` URLs are accepted.
/// - With a ``Configuration/proxy``: the channel's own connections too, `https://` in a `CONNECT` tunnel with TLS
///   end to end, `http://` in absolute form.
/// - Otherwise, `https://` requests go through AsyncHTTPClient (HTTP/2 where the server offers it) and `http://`
///   ones through the channel's own kept-alive connections; a caller's `HTTPClient` carries every request.
///
/// A caller's `HTTPClient` is never dropped silently: AsyncHTTPClient cannot run the handshake's verification
/// callback, so passing one together with pins, custom roots or a client identity is refused with
/// ``TransportError/Code/invalidConfiguration`` when the channel is made.
public struct SecureChannel: Sendable {
    /// Trust, identity, deadlines, retries and signing.
    public let configuration: Configuration
    private let executor: any HTTPExecutor
    /// Carries `https://` URLs when `executor` speaks plain HTTP only (the default channel).
    private let secureFallback: (any HTTPExecutor)?

    /// Creates a channel.
    ///
    /// - Parameters:
    ///   - configuration: trust, client identity, deadlines, retries and signing.
    ///   - httpClient: an AsyncHTTPClient to carry every request (its proxy, its timeouts, its connection pool).
    ///     Allowed only with the system's trust and no client identity; nil uses the channel's own connections
    ///     and AsyncHTTPClient's shared client for `https://` under the system's trust.
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when the trust roots or the client identity cannot
    ///   be loaded, or when `httpClient` is given with a custom trust, a client identity or a proxy.
    public init(configuration: Configuration = .init(), httpClient: HTTPClient? = nil) throws(TransportError) {
        try self.init(
            configuration: configuration,
            http: httpClient ?? .shared,
            callerSupplied: httpClient != nil,
            ownConnectionsForPlainHTTP: httpClient == nil
        )
    }

    /// The SDK's form: `http` is the SDK's default client unless `callerSupplied`.
    package init(
        configuration: Configuration,
        http: HTTPClient,
        callerSupplied: Bool,
        ownConnectionsForPlainHTTP: Bool
    ) throws(TransportError) {
        self.configuration = configuration
        if configuration.serverTrust.isCustom || configuration.clientIdentity != nil {
            guard !callerSupplied else {
                throw TransportError(
                    .invalidConfiguration,
                    "a caller's HTTPClient cannot check pins, custom roots or present a client certificate in the TLS "
                        + "handshake; leave httpClient out (the channel's own connections do all three)"
                )
            }
            self.secureFallback = nil
            do {
                self.executor = try NIOHTTPExecutor(
                    trust: configuration.serverTrust,
                    identity: configuration.clientIdentity,
                    proxy: configuration.proxy
                )
            } catch {
                throw TransportError(
                    .invalidConfiguration,
                    "the trust roots or the client identity could not be loaded",
                    underlying: error
                )
            }
        } else if let proxy = configuration.proxy {
            guard !callerSupplied else {
                throw TransportError(
                    .invalidConfiguration,
                    "a proxy is set on the channel and an HTTPClient is given: set the proxy on your HTTPClient, or "
                        + "leave httpClient out"
                )
            }
            // Through a proxy, `https://` goes over the channel's own connections too: one tunnel per connection,
            // the system's roots checked in the handshake as AsyncHTTPClient would.
            self.executor = NIOHTTPExecutor(proxy: proxy)
            do {
                self.secureFallback = try NIOHTTPExecutor(trust: .system, proxy: proxy)
            } catch {
                throw TransportError(
                    .invalidConfiguration,
                    "the system's trust roots could not be loaded",
                    underlying: error
                )
            }
        } else if ownConnectionsForPlainHTTP {
            self.executor = NIOHTTPExecutor()
            self.secureFallback = AsyncHTTPClientExecutor(http: http)
        } else {
            self.executor = AsyncHTTPClientExecutor(http: http)
            self.secureFallback = nil
        }
    }

    /// Sends `request` and returns the answer with its whole body (up to
    /// ``Configuration/maximumResponseSize``). Any status is an answer, not an error.
    ///
    /// - Parameters:
    ///   - request: method, scheme, authority and path (with its query) of any server.
    ///   - body: what follows the head.
    ///   - timeout: the deadline of each attempt, from connecting to the last byte; nil uses
    ///     ``Configuration/requestTimeout``.
    /// - Throws: ``TransportError`` when the exchange did not complete: unreachable, timed out, cancelled, an
    ///   untrusted server, a refused client certificate, an answer larger than allowed.
    public func send(
        _ request: HTTPRequest,
        body: Body = .empty,
        timeout: Duration? = nil
    ) async throws(TransportError) -> Response {
        let limit = configuration.maximumResponseSize
        do {
            return try await stream(request, body: body, timeout: timeout) { head, body in
                Response(head: head, body: try await body.collect(upTo: limit))
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.unreachable, "the answer could not be read", underlying: error)
        }
    }

    /// Sends `request` and hands the answer's head and body to `handle` while the exchange is open: the body
    /// arrives chunk by chunk, and reading stops while `handle` falls behind (a download is never buffered whole).
    ///
    /// - Throws: ``TransportError`` when the exchange did not complete; errors `handle` throws pass through
    ///   unchanged.
    public func stream<R>(
        _ request: HTTPRequest,
        body: Body = .empty,
        timeout: Duration? = nil,
        _ handle: (HTTPResponse, ResponseBody) async throws -> R
    ) async throws -> R {
        let outgoing = try OutgoingRequest(request, body: body.storage)
        return try await exchange(outgoing, timeout: timeout ?? configuration.requestTimeout) { head, body in
            guard (100...999).contains(head.status) else {
                throw TransportError(.unreachable, "the server answered with status \(head.status)")
            }
            var fields = HTTPFields()
            for (name, value) in head.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            return try await handle(HTTPResponse(status: .init(code: head.status), headerFields: fields), body)
        }
    }

    /// Opens one TLS connection to `url`'s host as a request would (same trust, pins and client identity),
    /// reports what it negotiated and closes it; nothing is sent.
    ///
    /// - Throws: ``TransportError/Code/untrustedServer`` when the server fails the trust,
    ///   ``TransportError/Code/invalidConfiguration`` for a URL that is not `https://`.
    public func connectionSecurity(to url: URL) async throws(TransportError) -> ConnectionSecurity {
        do {
            let probe = try NIOHTTPExecutor(
                trust: configuration.serverTrust,
                identity: configuration.clientIdentity,
                proxy: configuration.proxy
            )
            return try await probe.probe(url, timeout: configuration.requestTimeout)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportFailure.describe(
                error,
                url: url.absoluteString,
                presentedCertificate: configuration.clientIdentity != nil
            )
        }
    }

    /// Runs one exchange: GET, HEAD, OPTIONS and DELETE with a body that can be sent again are retried with
    /// exponential back-off after connection failures and 502/503/504; other methods are sent once. Each attempt
    /// is signed afresh (a new TSV1 nonce) when the channel signs. Failures of the exchange leave as
    /// ``TransportError``; errors thrown by `handle` pass through unchanged.
    package func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (ResponseHead, ResponseBody) async throws -> R
    ) async throws -> R {
        let idempotent = Self.idempotent.contains(request.method) && request.body.isReplayable
        var attempt = 1
        while true {
            let canRetry = idempotent && attempt < configuration.maximumAttempts
            let started = ContinuousClock.now
            let failure: TransportError
            var signed = request
            if let signer = configuration.signer {
                signed.headers.replaceOrAdd(name: "Authorization", value: try signer.authorization(for: request))
            }
            do {
                let carrier: any HTTPExecutor =
                    if let secureFallback, !request.url.hasPrefix("http://") { secureFallback } else { executor }
                return try await carrier.execute(signed, timeout: timeout) { head, body in
                    if canRetry, (502...504).contains(head.status) { throw RetryableStatus(status: head.status) }
                    do {
                        return try await handle(head, body)
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
                try await Task.sleep(for: configuration.retryBackoff * (Double(1 << (attempt - 1)) * jitter))
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

    /// The methods retried after a failure that may have happened before the server acted.
    private static let idempotent: Set<HTTPVerb> = [.GET, .HEAD, .OPTIONS, .DELETE]

    /// A gateway answer worth another try.
    private struct RetryableStatus: Error { let status: Int }

    /// An error the caller's `handle` threw, carried past the transport's mapping unchanged.
    private struct CallerFailure: Error { let error: any Error }

    /// The one place lower-level failures become codes.
    private func map(_ error: any Error, url: String, elapsed: Duration, timeout: Duration) -> TransportError {
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
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                return TransportError(
                    .timedOut,
                    "the request took longer than \(String(format: "%.1f", seconds)) s",
                    underlying: error
                )
            }
            return TransportFailure.describe(
                error,
                url: url,
                presentedCertificate: configuration.clientIdentity != nil
            )
        }
    }
}
