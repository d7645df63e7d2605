// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomAgent
import StrongroomCore
import StrongroomKeychain
import StrongroomTesting
import Synchronization
import Testing

/// The agent's server and client over a real Unix socket in this process: the server on a thread of its own (it
/// blocks, as in the agent process), the client's calls as `strongroom` makes them.
@Suite struct AgentServerTests {
    /// A server holding `key` for the keychain at `/keychains/one`, serving on a socket in a fresh folder.
    static func withAgent(
        holding key: KeychainUnlockKey,
        idleTimeout: Duration = .seconds(60),
        _ body: (String, AgentServer) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appending(path: "a.sock").path
            let listener = try UnixSocket.listen(at: path)
            let server = AgentServer(
                socketPath: path,
                idleTimeout: idleTimeout,
                holding: AgentServer.Held(keychainPath: "/keychains/one", key: key)
            )
            let cancelled = Mutex(false)
            // The server blocks in accept and poll, as in the agent process: a thread of its own, off the pool.
            Thread.detachNewThread { server.serve(listener) { cancelled.withLock { $0 } } }
            defer { cancelled.withLock { $0 = true } }
            try await body(path, server)
        }
    }

    static func key(_ storeID: String) throws -> KeychainUnlockKey {
        KeychainUnlockKey(storeID: storeID, dataKey: SecureBytes(copying: [UInt8](repeating: 0x5a, count: 32)))
    }

    /// One raw request and the whole answer.
    static func exchange(_ path: String, _ request: [UInt8]) throws -> (status: UInt8, payload: [UInt8]) {
        let socket = try UnixSocket.connect(to: path, timeout: AgentProtocol.timeout)
        try socket.write(request)
        let header = try socket.read(count: 3)
        let count = Int(header[1]) << 8 | Int(header[2])
        return (header[0], try socket.read(count: count))
    }

    @Test("the key of a held keychain is handed over; another store ID is unknown; status lists the keychain")
    func keyAndStatus() async throws {
        try await Self.withAgent(holding: try Self.key("store-1")) { path, _ in
            let held = try Self.exchange(path, try AgentProtocol.request(.key, Array("store-1".utf8)))
            #expect(held.status == AgentProtocol.Status.ok.rawValue)
            #expect(held.payload == [UInt8](repeating: 0x5a, count: 32))
            let other = try Self.exchange(path, try AgentProtocol.request(.key, Array("store-2".utf8)))
            #expect(other.status == AgentProtocol.Status.unknown.rawValue && other.payload.isEmpty)
            let status = try #require(try AgentClient.status(at: path))
            #expect(status.keychains == ["/keychains/one"] && status.socket == path && status.pid == getpid())
        }
    }

    @Test("a request with a bad magic, an unknown operation or an oversized length is a bad request, nothing more")
    func malformedRequests() async throws {
        try await Self.withAgent(holding: try Self.key("store-1")) { path, _ in
            for request in [
                Array("XXXX".utf8) + [1, 0, 0],
                Array("SRA1".utf8) + [9, 0, 0],
                Array("SRA1".utf8) + [1, 0x01, 0x01],  // 257 bytes announced
            ] {
                let answer = try Self.exchange(path, request)
                #expect(answer.status == AgentProtocol.Status.badRequest.rawValue && answer.payload.isEmpty)
            }
            // Still serving the honest request afterwards.
            let held = try Self.exchange(path, try AgentProtocol.request(.key, Array("store-1".utf8)))
            #expect(held.status == AgentProtocol.Status.ok.rawValue)
        }
    }

    @Test("stop wipes the keys, answers ok and removes the socket file; a second stop finds no agent")
    func stop() async throws {
        try await Self.withAgent(holding: try Self.key("store-1")) { path, _ in
            #expect(try AgentClient.stop(at: path))
            _ = try await eventually("the socket file removed") { !FileManager.default.fileExists(atPath: path) }
            #expect(try AgentClient.stop(at: path) == false)
            #expect(try AgentClient.status(at: path) == nil)
        }
    }

    @Test("an idle-expired agent hands out nothing")
    func idleExpiry() async throws {
        try await Self.withAgent(holding: try Self.key("store-1"), idleTimeout: .zero) { path, _ in
            // Idle from the start: the server stops at once; whatever still answers hands out no key.
            let answer = try? Self.exchange(path, try AgentProtocol.request(.key, Array("store-1".utf8)))
            #expect(answer.map { $0.status != AgentProtocol.Status.ok.rawValue } ?? true)
        }
    }

    @Test("a socket path no agent listens at is no agent, not an error")
    func noAgent() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appending(path: "none.sock").path
            let (status, stopped) = (try AgentClient.status(at: path), try AgentClient.stop(at: path))
            #expect(status == nil && !stopped)
        }
    }
}
