// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A second floor under the SDK's reads: GETs on one kept-alive SwiftNIO channel, each answer collected by a
/// handler that completes a promise — the least a Swift client on NIO does per request, with no HTTP client
/// library, no cryptography and no decoding. The SDK's own transport works the same way (one hop to the event loop
/// per request, one wake-up per answer), so its read sits between this and the format's cost.
enum RawNIOGet {
    /// GETs of `path` per second, `count` of them one at a time.
    static func rate(host: String, port: Int, path: String, authorization: String?, count: Int) async throws -> Double {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(host: host, port: port).get()
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        if let authorization { head.headers.add(name: "Authorization", value: authorization) }
        let request = head
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<count {
                let answered = channel.eventLoop.makePromise(of: Int.self)
                channel.eventLoop.execute {
                    collector.pending = answered
                    channel.write(HTTPClientRequestPart.head(request), promise: nil)
                    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                }
                let status = try await answered.futureResult.get()
                guard status == 200 else { throw RawRequestError(status: UInt(status)) }
            }
        }
        try await channel.close()
        return Double(count) / elapsed.seconds
    }

    /// Collects one answer and completes the pending promise with its status. Touched only on the event loop.
    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart
        var pending: EventLoopPromise<Int>?
        private var status = 0
        private var body = ByteBuffer()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                body.clear()
            case .body(var bytes):
                body.writeBuffer(&bytes)
            case .end:
                let promise = pending
                pending = nil
                promise?.succeed(status)
            }
        }
    }
}
