// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomServer
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
            let connection = try RawConnection(port: api.port)
            #expect(connection.isClosedByServer())
        }
    }

    @Test("a request head trickled past the header timeout is closed")
    func trickledHead() async throws {
        try await TestServer.run(connections: Self.limits(header: 1)) { api in
            let connection = try RawConnection(port: api.port)
            connection.send("GET /health HTTP/1.1\r\nHo")
            #expect(connection.isClosedByServer())
        }
    }

    @Test("a body trickled at one byte at a time is closed; a prompt body is not")
    func trickledBody() async throws {
        try await TestServer.run(connections: Self.limits(body: 1)) { api in
            let connection = try RawConnection(port: api.port)
            connection.send("POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            var closed = false
            for _ in 0..<100 where !closed {
                closed = !connection.send("a")
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(closed || connection.isClosedByServer())

            let prompt = try RawConnection(port: api.port)
            let answer = try prompt.exchange(
                "POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\na=b&c=d"
            )
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer.prefix(40))")
        }
    }

    @Test("at the cap, a new connection displaces the longest-idle one; /health answers")
    func capDisplacesIdle() async throws {
        try await TestServer.run(connections: Self.limits(cap: 3)) { api in
            let idle = try (0..<3).map { _ in try RawConnection(port: api.port) }
            try await Task.sleep(for: .milliseconds(100))  // all three registered (the close check does not rely on it)
            let health = try RawConnection(port: api.port).exchange(
                "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(40))")
            #expect(idle[0].isClosedByServer(), "the oldest idle connection made room")
        }
    }

    @Test("at the cap with every connection busy, a newcomer is closed at once")
    func capRefusesWhenBusy() async throws {
        try await TestServer.run(connections: Self.limits(cap: 2)) { api in
            let busy = try (0..<2).map { _ in try RawConnection(port: api.port) }
            for connection in busy { connection.send("GET /health HTTP/1.1\r\nHo") }
            try await Task.sleep(for: .milliseconds(200))  // both are reading their heads
            let newcomer = try RawConnection(port: api.port)
            #expect(newcomer.isClosedByServer())
        }
    }
}
