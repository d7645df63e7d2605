// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import StrongroomTransport

/// The `CONNECT` exchange with a proxy, byte by byte on an embedded channel: what is sent, and every answer a hostile
/// or broken proxy can give ending in a typed refusal, never a hang or a tunnel.
@Suite struct ProxyTunnelTests {
    /// A tunnel handler on an active embedded channel, and what it wrote.
    private func open(authorization: String? = nil) throws -> (EmbeddedChannel, EventLoopFuture<Void>, String) {
        let channel = EmbeddedChannel()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(
            ProxyTunnel(target: "api.example.com:443", authorization: authorization, promise: promise)
        )
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 3128)).wait()
        let sent = try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } ?? ""
        return (channel, promise.futureResult, sent)
    }

    private func outcome(_ future: EventLoopFuture<Void>) -> Result<Void, any Error>? {
        let result = Mutex<Result<Void, any Error>?>(nil)
        future.whenComplete { outcome in result.withLock { $0 = outcome } }
        return result.withLock { $0 }
    }

    @Test("a 200 opens the tunnel, even one byte at a time; the handler leaves the pipeline for TLS")
    func opens() throws {
        let (channel, future, sent) = try open(authorization: "Basic YTpi")
        #expect(
            sent == "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n"
                + "Proxy-Authorization: Basic YTpi\r\n\r\n"
        )
        for byte in "HTTP/1.1 200 Connection established\r\nVia: test\r\n\r\n".utf8 {
            #expect(outcome(future) == nil)
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(throws: Never.self) { try outcome(future)?.get() }
        #expect(outcome(future) != nil)
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ProxyTunnel.self) }
        _ = try? channel.finish()
    }

    @Test(
        "every other answer is refused: a status, not HTTP, bytes after the head, a head past 16 KiB",
        arguments: [
            ("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", 407),
            ("HTTP/1.0 403 Forbidden\r\n\r\n", 403),
            ("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", 502),
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", nil),
            ("HTTP/1.1 2x0 OK\r\n\r\n", nil),
            ("HTTP/1.1 200 OK\r\n\r\n\u{16}\u{03}\u{01}", 200),
            ("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Padding: aaaaaaaaaaaaaaaaaaaa\r\n", count: 600), nil),
        ] as [(String, Int?)]
    )
    func refusals(answer: String, status: Int?) throws {
        let (channel, future, _) = try open()
        _ = try? channel.writeInbound(ByteBuffer(string: answer))
        let result = try #require(outcome(future))
        guard case .failure(let error) = result, let refusal = error as? ProxyTunnel.Refusal else {
            Issue.record("the tunnel opened on \(answer.prefix(40))")
            return
        }
        #expect(refusal.status == status)
        #expect(!refusal.closed)
        #expect(!channel.isActive)
    }

    @Test("a proxy that hangs up before answering fails the tunnel as closed")
    func hangUp() throws {
        let (channel, future, _) = try open()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200"))
        try channel.close().wait()
        guard case .failure(let error) = try #require(outcome(future)) else {
            Issue.record("the tunnel opened")
            return
        }
        #expect((error as? ProxyTunnel.Refusal)?.closed == true)
    }
}
