// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOPosix
import Synchronization

/// A loopback HTTP/1.1 server that answers each request (a head without a body) with whatever its script says,
/// byte for byte, so a test can send what a well-behaved server never would: a close without `Connection: close`,
/// an answer cut short, an interim `100 Continue`, a large body written only as fast as the client reads it.
final class ScriptedHTTPServer: Sendable {
    /// What to send for one request.
    enum Reply: Sendable {
        /// These bytes, then close the connection when `close` is set.
        case bytes(String, close: Bool = false)
        /// A 200 with a body of `count` bytes (byte i is `i % 251`), written a chunk at a time as the socket takes it.
        case large(count: Int)
        /// These bytes after `delay`.
        case later(String, after: TimeAmount)
        /// Nothing, ever (the connection stays open).
        case silence
    }

    let port: Int
    private let channel: any Channel
    private let counts = Counts()

    /// Connections accepted and requests answered so far.
    var connections: Int { counts.state.withLock { $0.connections } }
    var requests: Int { counts.state.withLock { $0.requests } }

    private final class Counts: Sendable {
        let state = Mutex((connections: 0, requests: 0))
    }

    /// Starts listening on 127.0.0.1; `script` gets the request's number (from 0, across connections).
    init(script: @escaping @Sendable (_ request: Int) -> Reply) async throws {
        let counts = self.counts
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                counts.state.withLock { $0.connections += 1 }
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        Handler(next: {
                            counts.state.withLock { state in
                                defer { state.requests += 1 }
                                return script(state.requests)
                            }
                        })
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = try channel.localAddress?.port ?? { throw ChannelError.unknownLocalAddress }()
    }

    func close() async {
        try? await channel.close()
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let next: @Sendable () -> Reply
        private let pending = Mutex([UInt8]())

        init(next: @escaping @Sendable () -> Reply) { self.next = next }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let heads = pending.withLock { pending -> Int in
                pending += bytes
                var heads = 0
                while let end = Self.endOfHead(in: pending) {
                    pending.removeFirst(end)
                    heads += 1
                }
                return heads
            }
            for _ in 0..<heads { answer(context: context) }
        }

        private static func endOfHead(in bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual([13, 10, 13, 10]) {
                return index + 4
            }
            return nil
        }

        private func answer(context: ChannelHandlerContext) {
            switch next() {
            case .bytes(let text, let close):
                let written = context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)))
                if close {
                    let channel = context.channel
                    written.whenComplete { _ in channel.close(promise: nil) }
                }
            case .large(let count):
                context.write(
                    wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\n\r\n")),
                    promise: nil
                )
                Self.writeBody(from: 0, count: count, on: context.channel)
            case .later(let text, let delay):
                let channel = context.channel
                channel.eventLoop.scheduleTask(in: delay) {
                    channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
                }
            case .silence:
                break
            }
        }

        /// The body's bytes from any offset that is a multiple of 251, for 251 KiB.
        static let chunk = ByteBuffer(bytes: (0..<(251 << 10)).map { UInt8($0 % 251) })

        /// Writes 251 KiB at a time, each chunk once the last was taken by the socket.
        private static func writeBody(from offset: Int, count: Int, on channel: any Channel) {
            guard offset < count else { return }
            let length = min(chunk.readableBytes, count - offset)
            channel.writeAndFlush(chunk.getSlice(at: chunk.readerIndex, length: length)!).whenSuccess {
                writeBody(from: offset + length, count: count, on: channel)
            }
        }
    }
}
