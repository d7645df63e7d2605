// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import NIOPosix
import PostgresKit
import ServiceLifecycle
import StrongroomServer
import Synchronization

/// Announces writes between the instances on one PostgreSQL database through `LISTEN`/`NOTIFY` on the channel
/// ``channel``: one connection of its own per instance, which listens and sends. Announcements queued while one is
/// being sent go out together in the next (``WriteAnnouncement`` keeps each under `NOTIFY`'s 8,000 bytes).
///
/// When the connection fails it is made again (0.5 s, doubling to 10 s between attempts); every (re)connection
/// delivers ``AnnouncedWrites/unknown`` once it listens, since announcements may have been missed meanwhile.
/// Announcements queued while it is down are kept as one "unknown" once more than ``maximumPending`` types wait.
final class PostgresWriteAnnouncer: WriteAnnouncer, Sendable {
    /// The `LISTEN`/`NOTIFY` channel.
    static let channel = "strongroom_changes"
    /// The most distinct types queued before the queue becomes one ``AnnouncedWrites/unknown``.
    static let maximumPending = 10_000

    private struct State {
        var pending: Set<String> = []
        var overflowed = false
        var receiver: (@Sendable (AnnouncedWrites) -> Void)?
        var sender: CheckedContinuation<Void, Never>?

        var isEmpty: Bool { pending.isEmpty && !overflowed }
    }

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    /// This process's ID in its announcements.
    let instance = UUID().uuidString.lowercased()
    private let state = Mutex(State())

    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        (self.configuration, self.logger) = (configuration, logger)
    }

    func announce(_ types: Set<String>) {
        guard !types.isEmpty else { return }
        let sender = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if !state.overflowed {
                state.pending.formUnion(types)
                if state.pending.count > Self.maximumPending { (state.pending, state.overflowed) = ([], true) }
            }
            defer { state.sender = nil }
            return state.sender
        }
        sender?.resume()
    }

    func deliver(to receiver: @escaping @Sendable (AnnouncedWrites) -> Void) {
        state.withLock { $0.receiver = receiver }
    }

    /// Listens and sends until graceful shutdown, making the connection again whenever it fails.
    func run() async throws {
        try? await cancelWhenGracefulShutdown { [self] in
            var pause = Duration.milliseconds(500)
            while !Task.isCancelled {
                let began = ContinuousClock.now
                do {
                    try await session()
                } catch let error where !Task.isCancelled {
                    // A connection that served a while fails like a new one: the pause starts over.
                    if ContinuousClock.now - began > .seconds(30) { pause = .milliseconds(500) }
                    logger.warning(
                        "write announcements between instances are down; trying again",
                        metadata: ["reason": .string(String(describing: error))]
                    )
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(10))
            }
        }
    }

    /// One connection: listen, deliver "unknown" (what was missed while not listening), then send and receive until
    /// it fails or the task is cancelled.
    private func session() async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: configuration,
            id: 0,
            logger: logger
        )
        let ended: Result<Void, any Error>
        do {
            ended = .success(try await exchange(on: connection))
        } catch {
            ended = .failure(error)
        }
        try? await connection.close()
        try ended.get()
    }

    private func exchange(on connection: PostgresConnection) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            receive(.unknown)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    for try await notification in notifications {
                        guard let announcement = WriteAnnouncement(message: notification.payload) else { continue }
                        if announcement.instance != instance { receive(announcement.writes) }
                    }
                    throw ConnectionEnded()
                }
                group.addTask { [self] in
                    while true {
                        let writes = await nextWrites()
                        try Task.checkCancellation()
                        do {
                            for message in WriteAnnouncement.messages(instance: instance, writes) {
                                try await connection.query(
                                    "SELECT pg_notify(\(Self.channel), \(message))",
                                    logger: logger
                                )
                            }
                        } catch {
                            // Not sent (or not all of it): the next connection tells the others "anything".
                            state.withLock { $0.overflowed = true }
                            throw error
                        }
                    }
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }

    private func receive(_ writes: AnnouncedWrites) {
        state.withLock { $0.receiver }?(writes)
    }

    /// The queued announcements, taken; waits until there are some (or the task is cancelled: then empty).
    private func nextWrites() async -> AnnouncedWrites {
        while !Task.isCancelled {
            let taken = state.withLock { state -> AnnouncedWrites? in
                guard !state.isEmpty else { return nil }
                defer { (state.pending, state.overflowed) = ([], false) }
                return state.overflowed ? .unknown : .types(state.pending)
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    // Checked under the lock the cancellation handler takes: a cancellation either sees the
                    // continuation parked or is seen here.
                    let parked = state.withLock { state -> Bool in
                        guard state.isEmpty, state.sender == nil, !Task.isCancelled else { return false }
                        state.sender = continuation
                        return true
                    }
                    if !parked { continuation.resume() }
                }
            } onCancel: {
                let sender = state.withLock { state in
                    defer { state.sender = nil }
                    return state.sender
                }
                sender?.resume()
            }
        }
        return .types([])
    }
}

/// The listening connection's notifications ended: the connection closed.
private struct ConnectionEnded: Error, CustomStringConvertible {
    var description: String { "the listening connection closed" }
}
