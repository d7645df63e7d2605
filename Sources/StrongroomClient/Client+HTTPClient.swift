// Strongroom — SPDX-License-Identifier: Apache-2.0
public import AsyncHTTPClient
import NIOCore

extension Client {
    /// The HTTP client every ``Client`` uses unless given another: connections are pooled and reused, a
    /// connection attempt gives up after 10 seconds and is not retried, so an unreachable server is reported at
    /// once (``ClientError/Code/transport``) rather than when the request times out.
    ///
    /// With this client, requests to a plain `http://` server go through the SDK's own kept-alive HTTP/1.1
    /// connections instead (leaner per request); `https://` requests use it. It lives for the whole process, like
    /// `HTTPClient.shared`; pass your own to control TLS, proxies or timeouts — it then carries every request — and
    /// shut that one down yourself.
    public static let defaultHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
