// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import StrongroomTesting
import StrongroomTransport
import Synchronization
import Testing
import X509

/// ``SecureChannel`` against a backend that offers HTTP/2: the protocol is chosen by ALPN, every request to the host
/// shares one connection (each on a stream), and pins, the client certificate, TSV1 signatures, streaming bodies,
/// the proxy tunnel and per-request revocation work on it as over HTTP/1.1.
@Suite struct HTTP2ChannelTests {
    @Test("concurrent pinned, mutual-TLS, signed requests share one HTTP/2 connection")
    func multiplexed() async throws {
        let fixture = try BackendFixture(http2: true)
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let security = try await channel.connectionSecurity(to: URL(string: "https://127.0.0.1:\(port)")!)
            #expect(security.applicationProtocol == "h2")
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let path = index.isMultiple(of: 2) ? "/peer" : "/v1/me?n=\(index)"
                        let response = try await channel.send(.backend(.get, port, path))
                        return (response.status.code, String(buffer: response.body))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == 200 })
            #expect(answers.filter { $0.1 == fixture.clientID }.count == 12)
            // Every `/peer` answer names the same client port: one connection carried them all.
            #expect(Set(answers.filter { $0.1 != fixture.clientID }.map(\.1)).count == 1)
        }
    }

    @Test("a body of unknown length streams both ways on a stream; a revoked certificate fails its next request")
    func streamingAndRevocation() async throws {
        let fixture = try BackendFixture(http2: true)
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let chunk = ByteBuffer(bytes: (0..<(64 << 10)).map { UInt8($0 % 251) })
            let chunks = AsyncStream<ByteBuffer> { continuation in
                for _ in 0..<256 { continuation.yield(chunk) }
                continuation.finish()
            }
            let (status, digest) = try await channel.stream(.backend(.post, port, "/v1/echo"), body: .stream(chunks)) {
                response,
                body in
                var hash = SHA256()
                for try await piece in body { piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) } }
                return (response.status, hash.finalize())
            }
            var expected = SHA256()
            for _ in 0..<256 { chunk.withUnsafeReadableBytes { expected.update(bufferPointer: $0) } }
            #expect(status == .ok && digest == expected.finalize())

            let before = try await channel.send(.backend(.get, port, "/peer"))
            fixture.revoked.withLock { _ = $0.insert(fixture.client.certificate.serialNumber) }
            // The same connection (the middleware checks revocation per request, per stream).
            let after = try await channel.send(.backend(.get, port, "/peer"))
            #expect(before.status == .ok && after.status == .unauthorized)
        }
    }

    @Test("through a proxy's tunnel, HTTP/2 is negotiated end to end")
    func throughProxy() async throws {
        let fixture = try BackendFixture(http2: true)
        try await fixture.run { port in
            let proxy = try await TunnelProxy(upstreamPort: port)
            var configuration = try fixture.channelConfiguration()
            configuration.proxy = try HTTPProxy(host: "127.0.0.1", port: proxy.port)
            let channel = try SecureChannel(configuration: configuration)
            let answers = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 { group.addTask { try await channel.send(.backend(.get, port, "/v1/me")).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let security = try await channel.connectionSecurity(to: URL(string: "https://127.0.0.1:\(port)")!)
            await proxy.close()
            #expect(answers == Array(repeating: .ok, count: 8))
            #expect(security.applicationProtocol == "h2")
            // One tunnel for the eight requests, one for the probe.
            #expect(proxy.targets == ["127.0.0.1:\(port)", "127.0.0.1:\(port)"])
        }
    }
}
