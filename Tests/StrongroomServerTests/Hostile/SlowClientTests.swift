// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import StrongroomServer
import StrongroomServerTesting
import StrongroomTesting
import Testing

/// Idle sockets, trickled heads and trickled bodies are closed; at the connection cap a newcomer displaces the
/// longest-idle connection, so `/health` still answers. Short limits make each case quick; the server's clock does
/// the timing and the test only waits for the close.
@Suite struct SlowClientTests {
    static func limits(idle: Int = 30, header: Int = 30, body: Int = 30, cap: Int = 64) -> ConnectionLimits {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(idle)
        limits.headerTimeout = .seconds(header)
        limits.bodyTimeout = .seconds(body)
        limits.bodyMinimumRate = 1000
        limits.maximumConnections = cap
        return limits
    }

    @Test("an idle connection is closed after the idle timeout")
    func idle() async throws {
        try await TestServer.run(connections: Self.limits(idle: 1)) { api in
            let connection = try await RawConnection(port: api.port)
            #expect(await connection.isClosedByServer())
        }
    }

    @Test("a request head trickled past the header timeout is closed")
    func trickledHead() async throws {
        try await TestServer.run(connections: Self.limits(header: 1)) { api in
            let connection = try await RawConnection(port: api.port)
            await connection.send("GET /health HTTP/1.1\r\nHo")
            #expect(await connection.isClosedByServer())
        }
    }

    @Test("a body trickled at one byte at a time is closed; a prompt body is not")
    func trickledBody() async throws {
        try await TestServer.run(connections: Self.limits(body: 1)) { api in
            let connection = try await RawConnection(port: api.port)
            await connection.send("POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            var closed = false
            for _ in 0..<100 where !closed {
                closed = !(await connection.send("a"))
                try await Task.sleep(for: .milliseconds(200))
            }
            let closedLater = closed ? true : await connection.isClosedByServer()
            #expect(closedLater)

            let prompt = try await RawConnection(port: api.port)
            let answer = try await prompt.exchange(
                "POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\na=b&c=d"
            )
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(40))")
        }
    }

    @Test("a connection answered before its body ended becomes idle and is closed by the idle timeout")
    func answeredEarly() async throws {
        try await TestServer.run(connections: Self.limits(idle: 1, body: 60)) { api in
            // No credentials: the 401 goes out before the body arrives; then the body ends and nothing follows.
            // The head goes out with the connect: a second step could wait past the 1 s idle timeout on a busy pool.
            let connection = try await RawConnection(
                port: api.port,
                sending: "POST /v1/storage/records HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n"
            )
            let answer = try await connection.readResponse()
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(40))")
            await connection.send("{}{}")
            #expect(await connection.isClosedByServer())
        }
    }

    /// A connection the server has registered: one keep-alive request answered, then idle.
    static func registeredIdle(_ port: Int) async throws -> RawConnection {
        let connection = try await RawConnection(port: port)
        await connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try await connection.readResponse()
        guard answer.hasPrefix("HTTP/1.1 200") else { throw TestFailure("health answered \(answer.prefix(40))") }
        return connection
    }

    @Test("at the cap, a new connection displaces the longest-idle one; /health answers")
    func capDisplacesIdle() async throws {
        try await TestServer.run(connections: Self.limits(cap: 3)) { api in
            var idle: [RawConnection] = []
            for _ in 0..<3 { idle.append(try await Self.registeredIdle(api.port)) }
            let health = try await RawConnection(port: api.port).exchange(
                "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(40))")
            #expect(await idle[0].isClosedByServer(), "the oldest idle connection made room")
        }
    }

    @Test("at the cap with every connection busy, a newcomer is closed at once")
    func capRefusesWhenBusy() async throws {
        try await TestServer.run(connections: Self.limits(cap: 2)) { api in
            // The test framework's own client connects first (else it may connect at any moment and take a slot);
            // idle, it is the first one displaced below.
            _ = try await api.request(.get, "/health")
            var busy: [RawConnection] = []
            for _ in 0..<2 { busy.append(try await Self.registeredIdle(api.port)) }
            // Both start a request head; a newcomer must not displace a connection in the middle of a request.
            for connection in busy { await connection.send("GET /health HTTP/1.1\r\nHo") }
            // Give the server a moment to read those bytes; nothing it sends can signal that it has (generous: the
            // whole suite runs in parallel on two cores).
            try await Task.sleep(for: .seconds(2))
            let probe = try await Self.registeredIdleOrClosed(api.port)
            #expect(probe == nil, "the newcomer was closed")
        }
    }

    /// A new connection's answer to a keep-alive `/health`, or nil when the server closed it instead.
    static func registeredIdleOrClosed(_ port: Int) async throws -> String? {
        let connection = try await RawConnection(port: port)
        await connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        return try? await connection.readResponse()  // a closed connection has no response: that is the answer
    }
}
