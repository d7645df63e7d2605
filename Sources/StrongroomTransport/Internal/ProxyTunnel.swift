// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore

/// Opens a `CONNECT` tunnel through an HTTP proxy: writes the request once the connection is up, reads the proxy's
/// answer head (at most ``maximumHeadSize`` bytes), and removes itself on a 2xx so that TLS starts on the raw
/// tunnel. Any other answer, a head too long, bytes after the head, or a closed connection fails the promise.
final class ProxyTunnel: ChannelInboundHandler, RemovableChannelHandler {
    /// What a proxy's 407 means, in the user's words (a tunnel's and a forwarding proxy's alike).
    static let credentialsWanted = "the proxy wants credentials (407): give them as http://user:password@host:port"

    typealias InboundIn = ByteBuffer

    /// The longest answer head accepted from a proxy.
    static let maximumHeadSize = 16 << 10

    /// Why a tunnel was not opened.
    struct Refusal: Error {
        let status: Int?
        let message: String
        /// The connection closed before an answer (the deadline, cancellation, or the proxy hanging up).
        var closed = false
    }

    let promise: EventLoopPromise<Void>
    private let target: String
    private let authorization: String?
    private var received: ByteBuffer? = ByteBuffer()
    /// How far `received` has been searched for the head's end (each byte is looked at a bounded number of times).
    private var searched = 0
    private var sent = false
    /// Whether the tunnel opened (then `received` is nil, as after a failure: nothing more is read here).
    private var opened = false

    init(target: String, authorization: String?, promise: EventLoopPromise<Void>) {
        self.target = target
        self.authorization = authorization
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private func sendRequest(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        var head = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        head += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head)), promise: nil)
    }

    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard var buffer = received else { return }
        received = nil  // one reference, so the append does not copy
        buffer.writeBuffer(&bytes)
        received = buffer
        let view = buffer.readableBytesView
        guard let end = Self.endOfHead(in: view, from: max(0, searched - 3)) else {
            searched = view.count
            if buffer.readableBytes > Self.maximumHeadSize {
                fail(context, Refusal(status: nil, message: "the proxy's answer to CONNECT is longer than 16 KiB"))
            }
            return
        }
        guard end <= Self.maximumHeadSize else {
            return fail(context, Refusal(status: nil, message: "the proxy's answer to CONNECT is longer than 16 KiB"))
        }
        guard let status = Self.status(of: view) else {
            return fail(context, Refusal(status: nil, message: "the proxy's answer to CONNECT is not HTTP"))
        }
        guard (200...299).contains(status) else {
            let reason =
                status == 407
                ? Self.credentialsWanted
                : "the proxy refused the tunnel to \(target) (\(status))"
            return fail(context, Refusal(status: status, message: reason))
        }
        // The server speaks first only after the client's TLS hello: bytes already here are not the server's.
        guard end == buffer.readableBytes else {
            return fail(context, Refusal(status: status, message: "the proxy sent bytes after its answer to CONNECT"))
        }
        received = nil
        opened = true
        let promise = self.promise
        context.pipeline.syncOperations.removeHandler(self).whenComplete { _ in promise.succeed() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(
            Refusal(status: nil, message: "the proxy closed the connection before the tunnel opened", closed: true)
        )
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A channel closed before it was active removes its handlers without channelInactive: always answer.
        // (Completing a completed promise does nothing.)
        if !opened {
            promise.fail(Refusal(status: nil, message: "the connection to the proxy closed", closed: true))
        }
    }

    private func fail(_ context: ChannelHandlerContext, _ refusal: Refusal) {
        received = nil
        promise.fail(refusal)
        context.close(promise: nil)
    }

    /// The offset just past the first `\r\n\r\n` at or after offset `from`, if any.
    static func endOfHead(in bytes: ByteBufferView, from: Int = 0) -> Int? {
        var index = bytes.startIndex + from
        let terminator: [UInt8] = [13, 10, 13, 10]
        while index + 4 <= bytes.endIndex {
            if bytes[index] == 13, bytes[index..<index + 4].elementsEqual(terminator) {
                return index + 4 - bytes.startIndex
            }
            index += 1
        }
        return nil
    }

    /// The status of `HTTP/1.x NNN …`, or nil.
    static func status(of bytes: ByteBufferView) -> Int? {
        let start = bytes.startIndex
        guard bytes.count >= 12, bytes[start..<start + 7].elementsEqual("HTTP/1.".utf8), bytes[start + 8] == 32
        else { return nil }
        var status = 0
        for byte in bytes[start + 9..<start + 12] {
            guard (48...57).contains(byte) else { return nil }
            status = status * 10 + Int(byte - 48)
        }
        return status
    }
}
