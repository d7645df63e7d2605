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

    @Test("a caller's HTTPClient carries every request: through its proxy; and its read timeout ends a silent answer")
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
        try await BackendFixture.plain(router).test(.live) { client in
            let port = try #require(client.port)
            // Two callers' clients, so that neither assertion depends on the machine's speed: one with a proxy and no
            // read timeout, one with a short read timeout for an answer that never comes on its own.
            let proxy = try await TunnelProxy(upstreamPort: port)
            var proxied = HTTPClient.Configuration(proxy: .server(host: "127.0.0.1", port: proxy.port))
            proxied.httpVersion = .http1Only
            let viaProxy = HTTPClient(eventLoopGroupProvider: .singleton, configuration: proxied)
            let impatient = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(timeout: .init(connect: .seconds(30), read: .seconds(1)))
            )
            func shutdown() async {
                release.finish()
                try? await viaProxy.shutdown()
                try? await impatient.shutdown()
                await proxy.close()
            }
            do {
                let configuration = SecureChannel.Configuration(requestTimeout: .seconds(3600), maximumAttempts: 1)
                // No resolver knows this host: only the proxy can carry the request.
                let target = HTTPRequest(method: .get, scheme: "http", authority: "backend.invalid:8080", path: "/a")
                let response = try await SecureChannel(configuration: configuration, httpClient: viaProxy).send(target)
                #expect(String(buffer: response.body) == "from the backend")
                #expect(proxy.targets == ["backend.invalid:8080"])
                // The channel's own deadline is an hour: only the caller's client's read timeout ends this.
                let slow = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/slow")
                await #expect(throws: TransportError.self) {
                    try await SecureChannel(configuration: configuration, httpClient: impatient).send(slow)
                }
            } catch {
                await shutdown()
                throw error
            }
            await shutdown()
        }
    }
}
