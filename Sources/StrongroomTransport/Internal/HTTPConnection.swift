// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1
import Synchronization

/// One kept-alive HTTP/1.1 connection of ``NIOHTTPExecutor``, used by one exchange at a time (the pool hands it
/// to one taker). The request is written with one hop to the channel's event loop; the answer's parts are queued
/// by ``ResponseQueue`` and taken by the exchange directly, so a small answer costs one wake-up of the waiting task
/// and no task of its own per connection.
final class HTTPConnection: Sendable {
    let channel: any Channel
    let responses: ResponseQueue
    private let expiry = Mutex(Expiry())
    /// The last request's write: nil while it is in flight, then its outcome.
    private let lastWrite = Mutex<Result<Void, any Error>?>(.success(()))

    init(channel: any Channel, responses: ResponseQueue) {
        self.channel = channel
        self.responses = responses
    }

    /// Whether the connection can carry another exchange: open, the last request fully written, and nothing left
    /// over from its answer.
    var isReusable: Bool {
        guard channel.isActive, case .success = lastWrite.withLock({ $0 }) else { return false }
        return responses.isDrained
    }

    /// A request's write starts.
    func writeStarted() {
        lastWrite.withLock { $0 = nil }
    }

    /// How the request's write ended.
    func writeFinished(_ result: Result<Void, any Error>) {
        lastWrite.withLock { $0 = result }
    }

    /// Closes the connection, and drops its pending timer so that none outlives it on the event loop.
    func close() {
        let timer = expiry.withLock { expiry in
            defer { expiry = Expiry() }
            return expiry.timer
        }
        timer?.cancel()
        channel.close(promise: nil)
    }

    /// What happens to the connection at its deadline (a request's timeout, or the end of its idle time in the
    /// pool), and when the one event-loop timer it has fires.
    private struct Expiry {
        var deadline = NIODeadline.distantFuture
        var action: (@Sendable () -> Void)?
        /// When the pending timer fires; nil when none is pending.
        var timerFires: NIODeadline?
        /// The pending timer, once scheduled.
        var timer: Scheduled<Void>?
    }

    /// Runs `action` (on the event loop) at `deadline`, unless ``expire(at:_:)`` or ``cancelExpiry()`` replaces it
    /// first. A new timer is scheduled only when none is due by `deadline`: one due earlier fires, finds the later
    /// deadline and waits again, so a connection carrying request after request schedules and cancels no timer per
    /// request (each costs a lock and a wake-up of the event loop when done from outside it).
    func expire(at deadline: NIODeadline, _ action: @escaping @Sendable () -> Void) {
        let schedule = expiry.withLock { expiry -> Bool in
            expiry.deadline = deadline
            expiry.action = action
            if let fires = expiry.timerFires, fires <= deadline { return false }
            expiry.timerFires = deadline
            return true
        }
        if schedule { scheduleCheck(at: deadline) }
    }

    /// Drops the pending action (the request finished, or the connection left the pool).
    func cancelExpiry() {
        expiry.withLock { expiry in
            expiry.deadline = .distantFuture
            expiry.action = nil
        }
    }

    private func scheduleCheck(at time: NIODeadline) {
        let timer = channel.eventLoop.scheduleTask(deadline: time) { [weak self] () -> Void in
            self?.check(scheduledFor: time)
        }
        expiry.withLock { expiry in
            if expiry.timerFires == time { expiry.timer = timer }
        }
    }

    /// The timer fired: runs the action if its deadline has come, else waits for the deadline. A timer replaced by
    /// an earlier one does nothing.
    private func check(scheduledFor time: NIODeadline) {
        let now = channel.eventLoop.now
        let (action, next) = expiry.withLock { expiry -> ((@Sendable () -> Void)?, NIODeadline?) in
            guard expiry.timerFires == time else { return (nil, nil) }
            guard let action = expiry.action else {
                expiry.timerFires = nil
                expiry.timer = nil
                return (nil, nil)
            }
            guard expiry.deadline <= now else {
                expiry.timerFires = expiry.deadline
                expiry.timer = nil
                return (nil, expiry.deadline)
            }
            expiry = Expiry()
            return (action, nil)
        }
        if let next { scheduleCheck(at: next) }
        action?()
    }
}

/// The inbound end of an ``HTTPConnection``: response parts queue here until the exchange takes them, and reads
/// from the socket stop while more than ``highWater`` body bytes wait (a download is never buffered whole), resuming
/// once the taker brings it under ``lowWater``. After the connection closes or fails, what was queued is still
/// delivered, then the failure.
final class ResponseQueue: ChannelDuplexHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    static let highWater = 1 << 20
    static let lowWater = 256 << 10

    private struct State {
        var parts = CircularBuffer<HTTPClientResponsePart>()
        var queuedBytes = 0
        /// The most body bytes ever queued at once (what the bound holds to).
        var peakQueuedBytes = 0
        var waiter: CheckedContinuation<HTTPClientResponsePart, any Error>?
        var failure: (any Error)?
        /// A read the channel asked for and this handler held back.
        var readHeld = false
    }

    private let state = Mutex(State())
    /// The channel, for resuming held reads from the taker's thread (`Channel.read()` is thread-safe).
    private let channel = Mutex<(any Channel)?>(nil)

    init() {}

    /// Nothing queued, no failure.
    var isDrained: Bool { state.withLock { $0.parts.isEmpty && $0.failure == nil } }

    /// The most body bytes ever queued at once on this connection.
    var peakQueuedBytes: Int { state.withLock { $0.peakQueuedBytes } }

    /// The next part of the answer, waiting for it if none is queued.
    func next() async throws -> HTTPClientResponsePart {
        if let ready = state.withLock({ take(&$0) }) { return try deliver(ready) }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state in
                let ready = take(&state)
                if ready == nil { state.waiter = continuation }
                return ready
            }
            if let ready { continuation.resume(with: Result { try deliver(ready) }) }
        }
    }

    /// What a taker finds: a queued part (and whether held reads resume), or the failure.
    private enum Taken {
        case part(HTTPClientResponsePart, resumeReading: Bool)
        case failure(any Error)
    }

    private func take(_ state: inout State) -> Taken? {
        if let part = state.parts.popFirst() {
            state.queuedBytes -= Self.size(of: part)
            let resume = state.readHeld && state.queuedBytes < Self.lowWater
            if resume { state.readHeld = false }
            return .part(part, resumeReading: resume)
        }
        return state.failure.map { .failure($0) }
    }

    private func deliver(_ taken: Taken) throws -> HTTPClientResponsePart {
        switch taken {
        case .part(let part, let resumeReading):
            if resumeReading { channel.withLock { $0 }?.read() }
            return part
        case .failure(let error):
            throw error
        }
    }

    private static func size(of part: HTTPClientResponsePart) -> Int {
        if case .body(let bytes) = part { return bytes.readableBytes }
        return 0
    }

    // MARK: Channel events (on the event loop)

    func handlerAdded(context: ChannelHandlerContext) {
        channel.withLock { $0 = context.channel }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        let waiter = state.withLock { state -> CheckedContinuation<HTTPClientResponsePart, any Error>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.parts.append(part)
            state.queuedBytes += Self.size(of: part)
            state.peakQueuedBytes = max(state.peakQueuedBytes, state.queuedBytes)
            return nil
        }
        waiter?.resume(returning: part)
    }

    func read(context: ChannelHandlerContext) {
        let hold = state.withLock { state in
            state.readHeld = state.queuedBytes > Self.highWater
            return state.readHeld
        }
        if !hold { context.read() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<HTTPClientResponsePart, any Error>? in
            if state.failure == nil { state.failure = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }
}
