// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1
import NIOHTTP2
import Synchronization

/// HTTP/2 connections of ``NIOHTTPExecutor`` by `host:port`, one per host, shared by every exchange at once (each
/// on a stream of its own); closed when their server closes them, after ``ConnectionPool/defaultIdleTimeout`` with
/// no stream, and when the store goes away (with the client that made it).
final class MultiplexedConnections: Sendable {
    /// One HTTP/2 connection.
    final class Entry: Sendable {
        let channel: any Channel
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer
        /// Streams open now, and the idle timer armed when the last one ended.
        private let state = Mutex<(open: Int, idle: Scheduled<Void>?)>((0, nil))

        init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer) {
            self.channel = channel
            self.multiplexer = multiplexer
        }

        /// Opens a stream that speaks HTTP/1-style parts (``HTTPConnection`` runs its exchange unchanged); the
        /// connection is closed once it has had no stream for `idleTimeout`.
        func openStream(idleTimeout: TimeAmount) async throws -> HTTPConnection {
            let responses = ResponseQueue()
            let timer = state.withLock { state in
                state.open += 1
                defer { state.idle = nil }
                return state.idle
            }
            timer?.cancel()
            let stream: any Channel
            do {
                stream = try await multiplexer.createStreamChannel { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers([
                            HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https), responses,
                        ])
                    }
                }.get()
            } catch {
                streamEnded(idleTimeout: idleTimeout)
                throw error
            }
            stream.closeFuture.whenComplete { _ in self.streamEnded(idleTimeout: idleTimeout) }
            return HTTPConnection(channel: stream, responses: responses)
        }

        private func streamEnded(idleTimeout: TimeAmount) {
            let channel = self.channel
            state.withLock { state in
                state.open -= 1
                guard state.open == 0 else { return }
                state.idle?.cancel()
                state.idle = channel.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
            }
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Connections being opened that may turn out HTTP/2: later requests wait for them instead of each opening
        /// its own.
        var pending: [String: EventLoopFuture<Entry?>] = [:]
        /// Hosts whose server chose HTTP/1.1 (their requests open connections in parallel, without waiting).
        var http1: Set<String> = []
    }

    private let state = Mutex(State())

    init() {}

    /// How a request reaches its host.
    enum Route {
        /// On a new stream of this connection.
        case stream(Entry)
        /// Once this connection is open: on a stream of it if it is HTTP/2, else as `connect(nil)`.
        case wait(EventLoopFuture<Entry?>)
        /// On a connection of its own; a promise means the request opens the host's first connection and must
        /// complete it (with ``opened(_:for:)``) for the requests that wait.
        case connect(EventLoopPromise<Entry?>?)
    }

    /// The route for a request to `key`; `negotiates` is whether its connection could be HTTP/2 (TLS).
    func route(to key: String, negotiates: Bool, on eventLoop: any EventLoop) -> Route {
        state.withLock { state in
            if let entry = state.entries[key] {
                if entry.channel.isActive { return .stream(entry) }
                state.entries[key] = nil
            }
            if let pending = state.pending[key] { return .wait(pending) }
            guard negotiates, !state.http1.contains(key) else { return .connect(nil) }
            let promise = eventLoop.makePromise(of: Entry?.self)
            state.pending[key] = promise.futureResult
            return .connect(promise)
        }
    }

    /// The host's first connection is open (`entry` for HTTP/2, nil for HTTP/1.1 or a failure); the requests
    /// waiting for it go on. Returns the entry to use.
    @discardableResult
    func opened(_ entry: Entry?, for key: String, promise: EventLoopPromise<Entry?>, failed: Bool = false) -> Entry? {
        state.withLock { state in
            state.pending[key] = nil
            if let entry {
                state.entries[key] = entry
            } else if !failed {
                if state.http1.count >= 1024 { state.http1.removeAll() }
                state.http1.insert(key)
            }
        }
        promise.succeed(entry)
        return entry
    }

    /// Keeps `entry` as the connection to `key`, unless another open one got there first: then that one is
    /// returned and `entry` is the caller's to close.
    func adopt(_ entry: Entry, for key: String) -> Entry {
        state.withLock { state in
            if let existing = state.entries[key], existing.channel.isActive { return existing }
            state.entries[key] = entry
            return entry
        }
    }

    /// Forgets `entry` (its connection failed to open a stream).
    func drop(_ entry: Entry, for key: String) {
        state.withLock { state in
            if state.entries[key] === entry { state.entries[key] = nil }
        }
        entry.channel.close(promise: nil)
    }

    deinit {
        for entry in state.withLock({ $0.entries.values }) { entry.channel.close(promise: nil) }
    }
}
