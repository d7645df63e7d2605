// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import StrongroomCore
import Synchronization

/// Idle kept-alive connections by `host:port`, at most ``maximumIdlePerHost`` each, closed after ``idleTimeout``
/// unused (``defaultIdleTimeout`` unless a test needs longer) and when the pool goes away (with the client that
/// made it).
final class ConnectionPool: Sendable {
    static let maximumIdlePerHost = 8
    static let defaultIdleTimeout = Duration.seconds(20)

    let idleTimeout: TimeAmount

    init(idleTimeout: Duration) {
        self.idleTimeout = .nanoseconds(idleTimeout.nanoseconds)
    }

    private let idle = Mutex<[String: [HTTPConnection]]>([:])

    /// An idle connection to `key` that is still open, or nil.
    func take(_ key: String) -> HTTPConnection? {
        let (found, stale) = idle.withLock { pool -> (HTTPConnection?, [HTTPConnection]) in
            var stale: [HTTPConnection] = []
            while let candidate = pool[key]?.popLast() {
                if candidate.isReusable { return (candidate, stale) }
                stale.append(candidate)
            }
            return (nil, stale)
        }
        for connection in stale { connection.close() }
        found?.cancelExpiry()
        return found
    }

    /// Keeps `connection` for the next exchange with `key`, or closes it when the host has enough idle ones.
    ///
    /// The idle expiry is set before the connection is in the pool: once there, another exchange may take it and
    /// set its own deadline in the same place, which a later idle expiry would overwrite.
    func put(_ connection: HTTPConnection, _ key: String) {
        connection.expire(at: .now() + idleTimeout) { [weak self] in
            let removed = self?.idle.withLock { pool in
                guard let index = pool[key]?.firstIndex(where: { $0 === connection }) else { return false }
                pool[key]?.remove(at: index)
                return true
            }
            if removed ?? true { connection.close() }
        }
        let kept = idle.withLock { pool in
            guard pool[key, default: []].count < Self.maximumIdlePerHost else { return false }
            pool[key, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    deinit {
        for connection in idle.withLock({ $0.values.joined() }) { connection.close() }
    }
}
