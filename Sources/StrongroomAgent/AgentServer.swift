// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
package import StrongroomKeychain
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent process's loop: it holds unlocked keychain data keys and hands them to processes of the same user on
/// its socket, until `agent stop`, its idle timeout, a signal, or its socket file being removed or replaced.
///
/// Bounds: one request per connection, at most ``maximumConnections`` served at once (more are closed unanswered),
/// each read and write limited to ``AgentProtocol/timeout`` seconds, requests of at most
/// ``AgentProtocol/maximumRequestPayload`` bytes. Peers of another user are closed before anything is read
/// (`SO_PEERCRED`); the socket is mode 0600 in an owner-only folder besides.
package final class AgentServer: Sendable {
    package struct Held: Sendable {
        package var keychainPath: String
        package var key: KeychainUnlockKey

        package init(keychainPath: String, key: KeychainUnlockKey) {
            (self.keychainPath, self.key) = (keychainPath, key)
        }
    }

    /// What the agent keeps of a keychain: its path, and its data key sealed (``SealedSecret``) — opened only for
    /// the moment a request is answered, so a dump or a stray read of the agent's memory finds ciphertext.
    private struct Kept {
        var keychainPath: String
        var dataKey: SealedSecret
    }

    private struct State {
        var held: [String: Kept] = [:]
        var lastUse: ContinuousClock.Instant = .now
        var stopping = false
        var active = 0
    }

    package static let maximumConnections = 16

    package let socketPath: String
    package let idleTimeout: Duration
    private let state = Mutex(State())
    /// The socket file's device and inode when it was bound: a file at that path with another identity is not ours.
    private let socketIdentity: FileIdentity?

    package struct FileIdentity: Equatable, Sendable {
        package var device: UInt64
        package var inode: UInt64

        package init?(path: String) {
            var information = stat()
            guard lstat(path, &information) == 0 else { return nil }
            device = UInt64(information.st_dev)
            inode = UInt64(information.st_ino)
        }
    }

    package init(socketPath: String, idleTimeout: Duration, holding held: Held) {
        self.socketPath = socketPath
        self.idleTimeout = idleTimeout
        self.socketIdentity = FileIdentity(path: socketPath)
        // The caller's plaintext copy is wiped when it releases it; the sealing key lives in locked memory.
        let kept = Kept(keychainPath: held.keychainPath, dataKey: SealedSecret(held.key.dataKey))
        state.withLock { $0.held[held.key.storeID] = kept }
    }

    /// Serves until a reason to stop; then wipes every key and removes its socket file (when it is still ours).
    package func serve(_ listener: UnixSocket, isCancelled: () -> Bool) {
        while !isCancelled(), !shouldStop() {
            let connection: UnixSocket?
            do {
                connection = try listener.accept(waitingUpTo: 500)
            } catch {
                usleep(100_000)  // out of descriptors, say: wait instead of spinning
                continue
            }
            guard let connection else { continue }
            guard connection.peerUserID == getuid(),
                (try? connection.setTimeouts(seconds: AgentProtocol.timeout)) != nil,
                reserveConnection()
            else { continue }
            Thread.detachNewThread { [self] in
                handle(connection)
                state.withLock { $0.active -= 1 }
            }
        }
        wipe()
    }

    private func shouldStop() -> Bool {
        if FileIdentity(path: socketPath) != socketIdentity { return true }
        return state.withLock { $0.stopping || ContinuousClock.now - $0.lastUse >= idleTimeout }
    }

    private func reserveConnection() -> Bool {
        state.withLock { state in
            guard state.active < Self.maximumConnections else { return false }
            state.active += 1
            return true
        }
    }

    /// Forgets every key (sealed; their plaintext was never kept) and removes the socket file if it is still ours.
    private func wipe() {
        state.withLock {
            $0.held = [:]
            $0.stopping = true
        }
        if let socketIdentity, FileIdentity(path: socketPath) == socketIdentity { unlink(socketPath) }
    }

    private func handle(_ connection: UnixSocket) {
        do {
            let (operation, payload) = try AgentProtocol.readRequest(from: connection)
            switch operation {
            case .key:
                guard let kept = take(storeID: String(decoding: payload, as: UTF8.self)) else {
                    try connection.write(AgentProtocol.answerHeader(.unknown, length: 0))
                    return
                }
                try connection.write(AgentProtocol.answerHeader(.ok, length: kept.dataKey.count))
                try kept.dataKey.withUnsealed { (bytes) throws(UnixSocket.Failure) in try connection.write(bytes) }
            case .status:
                guard let body = status().encoded(maximumBytes: AgentProtocol.maximumAnswerPayload) else {
                    throw AgentProtocol.Malformed()
                }
                try connection.write(AgentProtocol.answerHeader(.ok, length: body.count) + body)
            case .stop:
                wipe()
                try connection.write(AgentProtocol.answerHeader(.ok, length: 0))
            }
        } catch is AgentProtocol.Malformed {
            try? connection.write((try? AgentProtocol.answerHeader(.badRequest, length: 0)) ?? [])
        } catch {
            // A peer that went away or stopped talking: nothing to answer.
        }
    }

    /// The key kept for `storeID`, counting as a use; nil when none is kept or the agent is idle-expired.
    private func take(storeID: String) -> Kept? {
        state.withLock { state in
            guard !state.stopping, ContinuousClock.now - state.lastUse < idleTimeout,
                let held = state.held[storeID]
            else { return nil }
            state.lastUse = .now
            return held
        }
    }

    private func status() -> AgentStatus {
        state.withLock { state in
            let remaining = idleTimeout - (ContinuousClock.now - state.lastUse)
            return AgentStatus(
                pid: getpid(),
                socket: socketPath,
                keychains: state.held.values.map(\.keychainPath).sorted(),
                idleTimeoutSeconds: Int(idleTimeout.components.seconds),
                secondsUntilIdleExit: max(0, Int(remaining.components.seconds)),
                keychainsNotListed: nil
            )
        }
    }
}
