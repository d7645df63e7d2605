// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1
import Synchronization

/// One kept-alive HTTP/1.1 connection of the pinning executor. A task owns the channel for its whole life
/// (`executeThenClose`) and lends its response stream and request writer to one exchange at a time; the exchange
/// says when it gives them back whether the connection is still clean (the whole answer read, no `Connection:
/// close`, no error), and the owner closes it otherwise.
final class PooledConnection: Sendable {
    typealias AsyncChannel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// What an exchange borrows. The iterator is used by one exchange at a time, handed over through the owner.
    struct Handles: @unchecked Sendable {
        let parts: IteratorBox<NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator>
        let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    }

    /// A loan: the handles, and where to say whether the connection may serve another exchange.
    struct Lease: Sendable {
        let handles: Handles
        let giveBack: CheckedContinuation<Bool, Never>
    }

    let channel: any Channel
    private let borrowers: AsyncStream<CheckedContinuation<Lease?, Never>>.Continuation
    private let idleTimer = Mutex<Scheduled<Void>?>(nil)

    init(_ asyncChannel: AsyncChannel) {
        let (stream, borrowers) = AsyncStream<CheckedContinuation<Lease?, Never>>.makeStream()
        self.borrowers = borrowers
        self.channel = asyncChannel.channel
        // A closed channel (server, deadline, idle timer) ends the loan loop, and with it the owner.
        asyncChannel.channel.closeFuture.whenComplete { _ in borrowers.finish() }
        Task {
            try? await asyncChannel.executeThenClose { inbound, outbound in
                let handles = Handles(parts: IteratorBox(inbound.makeAsyncIterator()), outbound: outbound)
                for await borrower in stream {
                    let clean = await withCheckedContinuation { back in
                        borrower.resume(returning: Lease(handles: handles, giveBack: back))
                    }
                    if !clean { break }
                }
            }
        }
    }

    /// Borrows the connection for one exchange; nil when it closed before the owner could lend it.
    func borrow() async -> Lease? {
        await withCheckedContinuation { borrower in
            if case .terminated = borrowers.yield(borrower) { borrower.resume(returning: nil) }
        }
    }

    /// Closes the connection (when idle: the owner is waiting for a borrower).
    func close() {
        borrowers.finish()
    }

    /// Closes it after `timeout` unless ``disarmIdleTimer()`` runs first.
    func armIdleTimer(_ timeout: TimeAmount, expire: @escaping @Sendable () -> Void) {
        let timer = channel.eventLoop.scheduleTask(in: timeout, expire)
        idleTimer.withLock { $0 = timer }
    }

    /// Cancels the idle timer (the connection was taken from the pool).
    func disarmIdleTimer() {
        idleTimer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}

/// Idle kept-alive connections by `host:port`, at most ``maximumIdlePerHost`` each, closed after ``idleTimeout``
/// unused and when the pool goes away (with the client that made it).
final class ConnectionPool: Sendable {
    static let maximumIdlePerHost = 8
    static let idleTimeout = TimeAmount.seconds(20)

    private let idle = Mutex<[String: [PooledConnection]]>([:])

    /// An idle connection to `key` that is still open, or nil.
    func take(_ key: String) -> PooledConnection? {
        let (found, stale) = idle.withLock { pool -> (PooledConnection?, [PooledConnection]) in
            var stale: [PooledConnection] = []
            while let candidate = pool[key]?.popLast() {
                if candidate.channel.isActive { return (candidate, stale) }
                stale.append(candidate)
            }
            return (nil, stale)
        }
        for connection in stale { connection.close() }
        found?.disarmIdleTimer()
        return found
    }

    /// Keeps `connection` for the next exchange with `key`, or closes it when the host has enough idle ones.
    func put(_ connection: PooledConnection, _ key: String) {
        let kept = idle.withLock { pool in
            guard pool[key, default: []].count < Self.maximumIdlePerHost else { return false }
            pool[key, default: []].append(connection)
            return true
        }
        guard kept else { return connection.close() }
        connection.armIdleTimer(Self.idleTimeout) { [weak self] in
            let removed = self?.idle.withLock { pool in
                guard let index = pool[key]?.firstIndex(where: { $0 === connection }) else { return false }
                pool[key]?.remove(at: index)
                return true
            }
            if removed ?? true { connection.close() }
        }
    }

    deinit {
        for connection in idle.withLock({ $0.values.joined() }) { connection.close() }
    }
}
