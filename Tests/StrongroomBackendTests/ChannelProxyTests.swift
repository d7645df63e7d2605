// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StrongroomTesting
import StrongroomTransport
import Testing

/// The channel's own connections through an HTTP proxy: pinned, mutual-TLS, signed requests in a `CONNECT` tunnel
/// (TLS end to end, the server verified as on a direct connection), plain requests in absolute form, and the
/// proxy's own refusals as typed errors.
@Suite struct ChannelProxyTests {
    @Test("pinned, mutual-TLS, signed requests go through the proxy's tunnel; a wrong pin is still refused there")
    func tunnel() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let proxy = try await TunnelProxy(upstreamPort: port)
            defer { Task { await proxy.close() } }
            var configuration = try fixture.channelConfiguration()
            configuration.proxy = try HTTPProxy(host: "127.0.0.1", port: proxy.port)
            // The proxy relays every tunnel to the backend: port 1 is reachable only through it.
            configuration.serverTrust.hostPins["localhost"] = configuration.serverTrust.hostPins["127.0.0.1"]
            let channel = try SecureChannel(configuration: configuration)
            let request = HTTPRequest(method: .get, scheme: "https", authority: "localhost:1", path: "/v1/me")
            let me = try await channel.send(request)
            #expect(me.status == .ok)
            #expect(String(buffer: me.body) == fixture.clientID)
            #expect(try await channel.send(request).status == .ok)  // a second request, on the kept-alive tunnel
            #expect(proxy.targets == ["localhost:1"])
            let security = try await channel.connectionSecurity(to: URL(string: "https://localhost:1")!)
            #expect(security.presentsClientCertificate && security.serverChain.first == fixture.server.certificate)

            var wrongPin = configuration
            wrongPin.serverTrust.hostPins["localhost"] = [try PublicKeyPin(certificate: fixture.client.certificate)]
            let error = await #expect(throws: TransportError.self) {
                try await SecureChannel(configuration: wrongPin).send(request)
            }
            #expect(error?.code == .untrustedServer)
        }
    }

    @Test("plain requests go to the proxy in absolute form, with its credentials; without them, 407 is a typed error")
    func forwardAndCredentials() async throws {
        let router = Router()
        router.get("/a") { request, _ in "from the backend: \(request.uri.path)" }
        try await BackendFixture.plain(router).test(.live) { client in
            let port = try #require(client.port)
            let credentials = HTTPProxy.Credentials(username: "app", password: "s3cret:with colon")
            let required = "Basic " + Data("app:s3cret:with colon".utf8).base64EncodedString()
            let proxy = try await TunnelProxy(upstreamPort: port, requiredAuthorization: required)
            defer { Task { await proxy.close() } }
            let request = HTTPRequest(method: .get, scheme: "http", authority: "backend.invalid:8080", path: "/a")
            let configuration = SecureChannel.Configuration(
                requestTimeout: .seconds(600),
                maximumAttempts: 1,
                proxy: try HTTPProxy(url: "http://app:s3cret%3Awith%20colon@127.0.0.1:\(proxy.port)")
            )
            let response = try await SecureChannel(configuration: configuration).send(request)
            #expect(String(buffer: response.body) == "from the backend: /a")
            #expect(proxy.targets == ["backend.invalid:8080"])
            #expect(configuration.proxy?.credentials == credentials)

            // No credentials: the proxy's 407 is a typed error, for a plain request as for a tunnel.
            var anonymous = configuration
            anonymous.proxy?.credentials = nil
            let forwarded = await #expect(throws: TransportError.self) {
                try await SecureChannel(configuration: anonymous).send(request)
            }
            #expect(forwarded?.code == .unreachable && forwarded?.status == 407)
            anonymous.serverTrust = ServerTrust(pins: [PublicKeyPin(subjectPublicKeyInfo: [1, 2, 3])])
            let error = await #expect(throws: TransportError.self) {
                try await SecureChannel(configuration: anonymous).send(
                    HTTPRequest(method: .get, scheme: "https", authority: "backend.invalid:443", path: "/a")
                )
            }
            #expect(error?.code == .unreachable && error?.status == 407)
            #expect(error.map { "\($0)" }?.contains("proxy") == true)
        }
    }

    @Test("proxy settings are checked where they are made, and a caller's HTTPClient with a channel proxy is refused")
    func settings() throws {
        for url in ["https://p:1", "http://", "http://p:1/path", "http://p:0", "http://p:70000", "socks5://p:1"] {
            #expect(throws: TransportError.self, "\(url)") { try HTTPProxy(url: url) }
        }
        #expect(throws: TransportError.self) { try HTTPProxy(host: "p\r\nX: y", port: 8080) }
        #expect(throws: TransportError.self) {
            try HTTPProxy(host: "p", port: 8080, credentials: .init(username: "a:b", password: ""))
        }
        #expect(throws: TransportError.self) {
            try HTTPProxy(host: "p", port: 8080, credentials: .init(username: "a", password: "x\r\n"))
        }
        #expect(try HTTPProxy(url: "http://proxy.example:3128").description == "proxy.example:3128")
        #expect(try HTTPProxy(url: "http://proxy.example").port == 80)

        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http.shutdown() }
        let error = #expect(throws: TransportError.self) {
            try SecureChannel(configuration: .init(proxy: try HTTPProxy(host: "p", port: 1)), httpClient: http)
        }
        #expect(error?.code == .invalidConfiguration)
    }
}

extension ChannelProxyTests {
    @Test("a proxy's password never shows in a description, a debug description or a dump")
    func passwordHidden() throws {
        let proxy = try HTTPProxy(url: "http://app:hunter2@proxy.example:3128")
        var dumped = ""
        dump(SecureChannel.Configuration(proxy: proxy), to: &dumped)
        for text in [String(describing: proxy), String(reflecting: proxy), dumped, "\(proxy.credentials!)"] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        #expect(proxy.credentials?.password == "hunter2")
    }
}
