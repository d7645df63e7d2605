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
import Synchronization
import Testing
import X509

/// A caller's `HTTPClient` is honoured (its proxy, its timeouts) under the system's trust, and refused — never
/// dropped silently — together with pins, custom roots or a client identity.
@Suite struct CustomHTTPClientTests {
    @Test("a caller's HTTPClient with pins or a client identity is refused when the channel is made")
    func refusedWithPins() async throws {
        let fixture = try BackendFixture()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http.shutdown() }
        let error = #expect(throws: TransportError.self) {
            try SecureChannel(configuration: try fixture.channelConfiguration(), httpClient: http)
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(throws: TransportError.self) {
            try SecureChannel(
                configuration: .init(serverTrust: ServerTrust(roots: .certificates([fixture.pki.root.certificate]))),
                httpClient: http
            )
        }
        // With the system's trust and no identity, the caller's client is taken.
        _ = try SecureChannel(configuration: .init(), httpClient: http)
    }

    @Test("a caller's HTTPClient carries every request: through its proxy, and with its read timeout")
    func honoured() async throws {
        let router = Router()
        router.get("/a") { _, _ in "from the backend" }
        // `/slow` answers only once the test has seen the client give up (so the server's graceful shutdown, which
        // waits for it, is not held up).
        let (released, release) = AsyncStream<Void>.makeStream()
        router.get("/slow") { _, _ -> String in
            for await _ in released { break }
            return "late"
        }
        var logger = Logger(label: "proxy-test")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: logger
        )
        try await app.test(.live) { client in
            let proxy = try await TunnelProxy(upstreamPort: try #require(client.port))
            var configuration = HTTPClient.Configuration(
                timeout: .init(connect: .seconds(30), read: .seconds(5)),
                proxy: .server(host: "127.0.0.1", port: proxy.port)
            )
            configuration.httpVersion = .http1Only
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let channel = try SecureChannel(
                    configuration: .init(requestTimeout: .seconds(3600), maximumAttempts: 1),
                    httpClient: http
                )
                // No resolver knows this host: only the proxy can carry the request.
                let target = HTTPRequest(method: .get, scheme: "http", authority: "backend.invalid:8080", path: "/a")
                let response = try await channel.send(target)
                #expect(String(buffer: response.body) == "from the backend")
                #expect(proxy.targets == ["backend.invalid:8080"])
                // The channel's own deadline is an hour: only the client's read timeout ends this.
                var slow = target
                slow.path = "/slow"
                await #expect(throws: TransportError.self) { try await channel.send(slow) }
                release.finish()
            } catch {
                release.finish()
                try await http.shutdown()
                await proxy.close()
                throw error
            }
            try await http.shutdown()
            await proxy.close()
        }
    }
}
