// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOEmbedded
import Testing

@testable import StrongroomTransport

#if canImport(Glibc)
import Glibc
#endif

/// The SDK's own HTTP/1.1 client over plain HTTP (the TLS side runs in the client's transport and mutual-TLS suites):
/// connections kept alive and reused only when clean, answers taken part by part with reads held back while the
/// taker falls behind.
@Suite struct NIOHTTPExecutorTests {
    private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    /// Runs `body` with a fresh executor against a server answering as `script` says; the server is closed
    /// whatever happens.
    /// (Idle connections are kept an hour, not the default 20 s, so a busy machine's pauses between requests cannot
    /// change how many connections a test sees.)
    private func withServer(
        _ script: @escaping @Sendable (Int) -> ScriptedHTTPServer.Reply,
        _ body: (NIOHTTPExecutor, ScriptedHTTPServer) async throws -> Void
    ) async throws {
        let server = try await ScriptedHTTPServer(script: script)
        do {
            try await body(NIOHTTPExecutor(idleTimeout: .seconds(3600)), server)
        } catch {
            await server.close()
            throw error
        }
        await server.close()
    }

    private func get(
        _ executor: NIOHTTPExecutor,
        _ server: ScriptedHTTPServer,
        path: String = "/x",
        timeout: Duration = .seconds(600)
    ) async throws -> (Int, String) {
        let request = OutgoingRequest(method: .GET, url: "http://127.0.0.1:\(server.port)\(path)")
        return try await executor.execute(request, timeout: timeout) { head, body in
            (head.status, String(buffer: try await body.collect(upTo: 1 << 20)))
        }
    }

    @Test("ten requests one after another share one kept-alive connection")
    func keptAlive() async throws {
        try await withServer({ _ in .bytes(Self.ok) }) { executor, server async throws in
            for _ in 0..<10 {
                let (status, body) = try await get(executor, server)
                #expect(status == 200 && body == "ok")
            }
            #expect(server.connections == 1 && server.requests == 10)
        }
    }

    @Test(
        "on a kept-alive connection each request has its own deadline, shorter than the last one's",
        .timeLimit(.minutes(10))
    )
    func deadlinesOnReusedConnection() async throws {
        let replies: [ScriptedHTTPServer.Reply] = [.bytes(Self.ok), .silence, .bytes(Self.ok)]
        try await withServer({ replies[min($0, 2)] }) { executor, server async throws in
            // A long deadline, answered at once; then 300 ms with no answer: it ends at 300 ms. Were the first
            // deadline kept, the silent reply would run into the test's time limit instead (no wall-time assertion).
            #expect(try await get(executor, server) == (200, "ok"))
            await #expect(throws: (any Error).self) {
                try await get(executor, server, timeout: .milliseconds(300))
            }
            // The silent exchange's connection was closed, not retried: the next request opens the second.
            #expect(try await get(executor, server) == (200, "ok"))
            #expect(server.connections == 2)
        }
    }

    @Test("a deadline longer than the last one's: the earlier timer fires, finds the later deadline and waits for it")
    func longerDeadlineOnReusedConnection() async throws {
        // The connection's timer on an embedded event loop, whose clock moves only when the test says.
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let connection = HTTPConnection(channel: channel, responses: ResponseQueue())
        let start = loop.now
        connection.expire(at: start + .seconds(5)) { channel.close(promise: nil) }
        connection.cancelExpiry()  // answered at once
        connection.expire(at: start + .seconds(30)) { channel.close(promise: nil) }
        loop.advanceTime(by: .seconds(6))  // the first request's timer fires here
        #expect(channel.isActive, "the first deadline's timer must not end the second request")
        loop.advanceTime(by: .seconds(25))
        #expect(!channel.isActive, "the second request's own deadline ends it")
        _ = try? channel.finish()
    }

    @Test("a request its own caller ended on a reused connection fails there; it is not sent again on a new one")
    func ownEndIsNotRetried() async throws {
        try await withServer({ _ in .bytes(Self.ok) }) { executor, server async throws in
            #expect(try await get(executor, server) == (200, "ok"))
            // Cancelled before it starts: the pooled connection is closed before the request's write reaches it (both
            // are queued on its event loop, in that order), so the write fails as on a connection the server closed
            // while it sat idle, the one failure that earns a second try. A deadline that passes before the write
            // (a loaded machine, a short timeout) does the same; this is its deterministic form.
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await get(executor, server)
            }
            await #expect(throws: (any Error).self) { try await cancelled.value }
            #expect(server.connections == 1)
        }
    }

    @Test("a connection the server closed while it sat in the pool is not used again; the next request opens one")
    func closedWhileIdle() async throws {
        try await withServer({ _ in .bytes(Self.ok, close: true) }) { executor, server async throws in
            #expect(try await get(executor, server) == (200, "ok"))
            // The answer said nothing about closing; the close arrives after it.
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await get(executor, server) == (200, "ok"))
            #expect(server.connections == 2)
        }
    }

    @Test("an answer with Connection: close is read whole and its connection closed, not pooled")
    func connectionClose() async throws {
        let closing = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
        try await withServer({ _ in .bytes(closing) }) { executor, server async throws in
            #expect(try await get(executor, server) == (200, "ok"))
            #expect(try await get(executor, server) == (200, "ok"))
            #expect(server.connections == 2)
        }
    }

    @Test("an answer cut short is an error, and the connection is not reused")
    func cutShort() async throws {
        let short = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"
        try await withServer({ $0 == 0 ? .bytes(short, close: true) : .bytes(Self.ok) }) {
            executor,
            server async throws in
            await #expect(throws: (any Error).self) { try await get(executor, server) }
            #expect(try await get(executor, server) == (200, "ok"))
            #expect(server.connections == 2)
        }
    }

    @Test("interim 1xx answers are skipped; the final status and body are the caller's")
    func interimAnswers() async throws {
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nnew"
        try await withServer({ _ in .bytes(interim) }) { executor, server async throws in
            #expect(try await get(executor, server) == (201, "new"))
            #expect(try await get(executor, server) == (201, "new"))
            #expect(server.connections == 1)
        }
    }

    @Test("a 32 MiB answer arrives intact while no more than about a MiB waits in the client for a slow reader")
    func boundedBuffering() async throws {
        let count = 32 << 20
        try await withServer({ _ in .large(count: count) }) { executor, server async throws in
            let request = OutgoingRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/large")
            // Byte i of the body is i % 251: any chunk of up to 256 KiB is a slice of this from (offset % 251).
            let pattern = (0..<(251 * 1100)).map { UInt8($0 % 251) }
            let (total, intact) = try await executor.execute(request, timeout: .seconds(600)) { head, body in
                #expect(head.status == 200)
                var total = 0
                var intact = true
                var chunks = 0
                for try await chunk in body {
                    let start = total % 251
                    intact =
                        intact && start + chunk.readableBytes <= pattern.count
                        && chunk.withUnsafeReadableBytes { bytes in
                            pattern.withUnsafeBytes {
                                memcmp(bytes.baseAddress!, $0.baseAddress! + start, bytes.count) == 0
                            }
                        }
                    total += chunk.readableBytes
                    chunks += 1
                    // A reader that falls behind now and then: without the bound the whole answer would queue here.
                    if chunks.isMultiple(of: 32) { try await Task.sleep(for: .milliseconds(20)) }
                }
                return (total, intact)
            }
            #expect(total == count && intact)
            let connection = try #require(executor.pool.take("127.0.0.1:\(server.port)"))
            #expect(connection.responses.peakQueuedBytes <= ResponseQueue.highWater + (1 << 20))
            connection.close()
        }
    }

    @Test("the plain executor refuses an https URL before connecting")
    func schemes() async throws {
        let plain = NIOHTTPExecutor()
        let error = await #expect(throws: TransportError.self) {
            try await plain.execute(OutgoingRequest(method: .GET, url: "https://127.0.0.1:1/"), timeout: .seconds(5)) {
                status,
                _ in status
            }
        }
        #expect(error?.code == .invalidConfiguration)
    }
}
