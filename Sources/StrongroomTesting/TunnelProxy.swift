// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// An HTTP proxy: `CONNECT` tunnels and plain requests in absolute form. It records each target (host and port),
/// then relays bytes both ways to `upstreamPort` on 127.0.0.1 whatever host was asked for, so that a test can name a
/// host no resolver knows and still prove the request went through the proxy.
public final class TunnelProxy: Sendable {
    /// The port the proxy listens on (127.0.0.1).
    public let port: Int
    private let channel: any Channel
    private let log = TargetLog()

    /// The `CONNECT` targets seen, in order.
    public var targets: [String] { log.entries.withLock { $0 } }

    private final class TargetLog: Sendable {
        let entries = Mutex<[String]>([])
    }

    /// A proxy relaying to `upstreamPort`; with `requiredAuthorization`, a request without that exact
    /// `Proxy-Authorization` value gets 407 and the connection is closed.
    public init(upstreamPort: Int, requiredAuthorization: String? = nil) async throws {
        let log = self.log
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        ConnectHandler(upstreamPort: upstreamPort, requiredAuthorization: requiredAuthorization) {
                            target in
                            log.entries.withLock { $0.append(target) }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening.
    public func close() async { try? await channel.close() }

    /// Reads the `CONNECT` head, opens the upstream connection, answers 200 and relays from then on (everything runs
    /// on the client connection's event loop).
    private final class ConnectHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let upstreamPort: Int
        let requiredAuthorization: String?
        let record: @Sendable (String) -> Void
        var pending = ByteBuffer()
        var started = false
        var upstream: (any Channel)?

        init(upstreamPort: Int, requiredAuthorization: String?, record: @escaping @Sendable (String) -> Void) {
            self.upstreamPort = upstreamPort
            self.requiredAuthorization = requiredAuthorization
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            if let upstream {
                upstream.writeAndFlush(bytes, promise: nil)
                return
            }
            pending.writeBuffer(&bytes)
            guard !started, let text = pending.getString(at: pending.readerIndex, length: pending.readableBytes),
                let end = text.range(of: "\r\n\r\n")
            else { return }
            started = true
            // ("\r\n" is one Character in Swift.)
            let line = text.prefix { $0 != "\r\n" }.split(separator: " ")
            guard line.count == 3 else {
                context.close(promise: nil)
                return
            }
            // `CONNECT host:port` opens a tunnel; `GET http://host:port/path` (plain HTTP through a proxy) is passed
            // on as it is.
            if let requiredAuthorization,
                !text[..<end.lowerBound].split(separator: "\r\n").contains(
                    "Proxy-Authorization: " + requiredAuthorization
                )
            {
                context.writeAndFlush(
                    NIOAny(
                        ByteBuffer(string: "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
                    ),
                    promise: nil
                )
                context.close(promise: nil)
                return
            }
            let tunnel = line[0] == "CONNECT"
            if tunnel {
                record(String(line[1]))
                pending.moveReaderIndex(forwardBy: text.utf8.distance(from: text.startIndex, to: end.upperBound))
            } else {
                record(String(line[1].split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""))
            }
            let client = context.channel
            let future = ClientBootstrap(group: context.eventLoop).connect(host: "127.0.0.1", port: upstreamPort)
            future.whenSuccess { upstream in
                self.upstream = upstream
                _ = upstream.pipeline.addHandler(Relay(partner: client))
                if tunnel {
                    client.writeAndFlush(
                        ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"),
                        promise: nil
                    )
                }
                if self.pending.readableBytes > 0 { upstream.writeAndFlush(self.pending, promise: nil) }
                self.pending.clear()
            }
            future.whenFailure { _ in client.close(promise: nil) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            upstream?.close(promise: nil)
            context.fireChannelInactive()
        }
    }

    /// Writes what one side reads to the other; closing one closes both.
    private final class Relay: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        init(partner: any Channel) { self.partner = partner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }
    }
}
