// Strongroom — SPDX-License-Identifier: Apache-2.0

package import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StrongroomCore

/// An HTTP method (kept apart from NIO's type so callers need not import NIO). Printed as the method's name, as
/// error messages quote it.
package struct HTTPVerb: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let GET = HTTPVerb(rawValue: "GET")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let HEAD = HTTPVerb(rawValue: "HEAD")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let OPTIONS = HTTPVerb(rawValue: "OPTIONS")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let POST = HTTPVerb(rawValue: "POST")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let PUT = HTTPVerb(rawValue: "PUT")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let PATCH = HTTPVerb(rawValue: "PATCH")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    package static let DELETE = HTTPVerb(rawValue: "DELETE")

    var method: HTTPMethod { HTTPMethod(rawValue: rawValue) }
}

/// HTTP to one server: the SDK's view of a ``SecureChannel`` (one channel carries the SDK's requests and an app's
/// own): the base URL, and exchanges that hand the status and body to the caller.
package struct HTTPTransport: Sendable {
    /// The server's base URL, without a trailing slash.
    package let baseURL: String
    /// Trust, timeouts and retries.
    package let options: TransportOptions
    /// The channel requests travel on.
    package let channel: SecureChannel

    /// - Parameters:
    ///   - http: carries requests to `https://` servers trusted through the system's roots, and every request when
    ///     `ownConnectionsForPlainHTTP` is false.
    ///   - callerSupplied: whether `http` is the caller's own client (then a custom trust or a client identity is
    ///     refused, never dropped silently).
    ///   - ownConnectionsForPlainHTTP: send `http://` requests through the channel's kept-alive connections
    ///     instead of `http` (for the SDK's default client; a client the caller configured — a proxy, its own
    ///     timeouts — carries everything).
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when the trust roots cannot be loaded, or a caller's
    ///   client comes with a custom trust or a client identity.
    package init(
        apiURL: URL,
        http: HTTPClient,
        callerSupplied: Bool = false,
        ownConnectionsForPlainHTTP: Bool = false,
        options: TransportOptions = .init()
    ) throws(TransportError) {
        var base = apiURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.options = options
        self.channel = try SecureChannel(
            configuration: .init(options),
            http: http,
            callerSupplied: callerSupplied,
            ownConnectionsForPlainHTTP: ownConnectionsForPlainHTTP && apiURL.scheme == "http"
        )
    }

    /// Opens one TLS connection to the server as a request would (same trust, pins and client identity), reports
    /// what it negotiated and closes it; nothing is sent.
    ///
    /// - Throws: ``TransportError/Code/untrustedServer`` when the server fails the trust,
    ///   ``TransportError/Code/invalidConfiguration`` for a URL that is not `https://`.
    package func connectionSecurity() async throws(TransportError) -> ConnectionSecurity {
        guard let url = URL(string: baseURL) else {
            throw TransportError(.invalidConfiguration, "\(baseURL) is not a URL")
        }
        return try await channel.connectionSecurity(to: url)
    }

    /// Runs one exchange as ``SecureChannel`` does (GET and DELETE retried, writes sent once); `handle` gets the
    /// status and the body while the exchange is open.
    package func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws -> R {
        try await channel.exchange(request, timeout: timeout) { head, body in try await handle(head.status, body) }
    }

    /// ``exchange(_:timeout:_:)`` with the answer's header fields too.
    package func exchange<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (ResponseHead, ResponseBody) async throws -> R
    ) async throws -> R {
        try await channel.exchange(request, timeout: timeout, handle)
    }
}
