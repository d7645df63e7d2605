// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
package import StrongroomKeychain

#if canImport(Glibc)
import Glibc
#endif

/// Talking to a running `strongroom agent`: where its socket is, the data key of a keychain it holds, its status,
/// and stopping it. A missing or silent agent is never an error for a command: it falls back to the passphrase.
package enum AgentClient {
    /// The process behind the socket belongs to another user.
    package struct ForeignAgent: Error, CustomStringConvertible {
        package var description: String { "the socket belongs to another user's process" }
    }

    /// The agent's socket: `STRONGROOM_AGENT_SOCKET`, else `agent.sock` in `STRONGROOM_HOME` (default
    /// `~/.strongroom`). nil when `STRONGROOM_AGENT_SOCKET` is set and empty (the agent is not used).
    package static var socketPath: String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STRONGROOM_AGENT_SOCKET"] { return path.isEmpty ? nil : path }
        let home =
            environment["STRONGROOM_HOME"].map { URL(fileURLWithPath: $0) }
            ?? Client.Configuration.defaultProfileDirectory
        return home.appending(path: "agent.sock").path
    }

    /// One request and its answer; nil when no agent listens at `path`.
    private static func exchange(
        _ path: String,
        _ operation: AgentProtocol.Operation,
        _ payload: [UInt8] = []
    ) throws -> (status: AgentProtocol.Status, length: Int, socket: UnixSocket)? {
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connect(to: path, timeout: AgentProtocol.timeout)
        } catch  where [ENOENT, ECONNREFUSED, ENOTSOCK].contains(error.code) {
            return nil
        }
        // Only an agent of this user: a socket another user planted (a shared folder in STRONGROOM_AGENT_SOCKET)
        // must not hand this process a key of its choosing.
        guard socket.peerUserID == getuid() else { throw ForeignAgent() }
        try socket.write(AgentProtocol.request(operation, payload))
        let (status, length) = try AgentProtocol.readAnswerHeader(from: socket)
        return (status, length, socket)
    }

    /// The data key the agent holds for the keychain `storeID`; nil when there is no agent, it does not hold that
    /// keychain, or it does not answer properly (then `note` is told why: the CLI prints it under `--verbose`).
    package static func unlockKey(storeID: String, note: (String) -> Void = { _ in }) -> KeychainUnlockKey? {
        guard let path = socketPath, FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            guard let answer = try exchange(path, .key, Array(storeID.utf8.prefix(128))), answer.status == .ok,
                answer.length == 32
            else { return nil }
            let key = try SecureBytes(count: 32) { (buffer) throws in try answer.socket.read(into: buffer) }
            return KeychainUnlockKey(storeID: storeID, dataKey: key)
        } catch {
            note("note: the agent at \(path) did not answer (\(error)); asking for the passphrase")
            return nil
        }
    }

    /// The running agent's status; nil when none answers at `path`.
    package static func status(at path: String) throws -> AgentStatus? {
        guard let answer = try exchange(path, .status), answer.status == .ok else { return nil }
        return try JSONDecoder().decode(AgentStatus.self, from: Data(try answer.socket.read(count: answer.length)))
    }

    /// Asks the agent at `path` to wipe what it holds and exit; false when none was running.
    package static func stop(at path: String) throws -> Bool {
        guard let answer = try exchange(path, .stop) else { return false }
        return answer.status == .ok
    }
}
