// Strongroom — SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import StrongroomCore

/// Closes connections that hold the server without using it: idle too long, a request head trickled in slower
/// than ``ConnectionLimits/headerTimeout``, or a body slower than ``ConnectionLimits/bodyMinimumRate``; and keeps
/// the number of connections under the cap through the ``ConnectionRegistry``.
///
/// It sits after the HTTP decoder: decoded parts mark the phases, and every socket read (a `channelReadComplete`,
/// which the decoder forwards even when a read held only part of a head) marks the start of a request head.
final class SlowClientGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// Waiting for a request; nothing of it has arrived.
        case idle
        /// Part of a request head has arrived.
        case readingHead
        /// The head arrived at `started`; `received` body bytes so far.
        case readingBody(started: NIODeadline, received: Int)
        /// The request is with the server; its own work is not timed here.
        case responding
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private var phase = Phase.idle
    /// Whether the response to the current request has been written (it may be, before the body has all arrived).
    private var responded = false
    /// Whether the current socket read produced a decoded part: only a read that produced none can be the start
    /// of a new request head (a read that ended a request is followed by its own read-complete).
    private var decodedInThisRead = false
    private var deadline: NIODeadline?
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?
    private var id: ObjectIdentifier { ObjectIdentifier(self) }

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard registry.open(id, channel: context.channel, now: .now()) else {
            context.close(promise: nil)
            return
        }
        enter(.idle, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.task.cancel()
        registry.close(id)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.task.cancel()
        registry.close(id)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decodedInThisRead = true
        switch unwrapInboundIn(data) {
        case .head:
            responded = false
            enter(.readingBody(started: .now(), received: 0), context: context)
        case .body(let buffer):
            if case .readingBody(let started, let received) = phase {
                let total = received + buffer.readableBytes
                phase = .readingBody(started: started, received: total)
                // Clamped: no body, however long, earns more than a day.
                let earned = Int64(min(total / max(1, limits.bodyMinimumRate), 86_400))
                deadline = started + .nanoseconds(limits.bodyTimeout.nanoseconds) + .seconds(earned)
            }
        case .end:
            // An answer written before the body ended leaves nothing in progress: the connection is idle again.
            enter(responded ? .idle : .responding, context: context)
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if case .idle = phase, !decodedInThisRead { enter(.readingHead, context: context) }
        decodedInThisRead = false
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            if case .responding = phase { enter(.idle, context: context) } else { responded = true }
        }
        context.write(data, promise: promise)
    }

    private func enter(_ next: Phase, context: ChannelHandlerContext) {
        phase = next
        let now = NIODeadline.now()
        switch next {
        case .idle:
            registry.markIdle(id, since: now)
            deadline = now + .nanoseconds(limits.idleTimeout.nanoseconds)
        case .readingHead:
            registry.markBusy(id)
            deadline = now + .nanoseconds(limits.headerTimeout.nanoseconds)
        case .readingBody:
            registry.markBusy(id)
            deadline = now + .nanoseconds(limits.bodyTimeout.nanoseconds)
        case .responding:
            registry.markBusy(id)
            deadline = nil
        }
        arm(context: context)
    }

    /// Keeps one timer pending, no later than the current deadline: an earlier deadline replaces a later timer; a
    /// timer that fires before a deadline that moved later re-arms itself.
    private func arm(context: ChannelHandlerContext) {
        guard let deadline else { return }
        if let timer {
            guard timer.deadline > deadline else { return }
            timer.task.cancel()
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let task = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            guard let current = handler.deadline else { return }
            if current <= .now() {
                context.close(promise: nil)
            } else {
                handler.arm(context: context)
            }
        }
        timer = (task, deadline)
    }
}
