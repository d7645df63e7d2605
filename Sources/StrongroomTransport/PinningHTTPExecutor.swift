// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import StrongroomCore
import SwiftASN1
import X509

/// HTTPS over SwiftNIO with SPKI pinning checked inside the TLS handshake.
///
/// AsyncHTTPClient cannot run a certificate callback, so clients with a custom ``ServerTrust`` use this: one
/// connection per request (`Connection: close`), BoringSSL validating the chain and host name against the
/// configured roots, then the leaf's key checked against the pins before the handshake completes. Request bytes
/// are only written once the handshake succeeded, so a server with another key never sees the request.
struct PinningHTTPExecutor: HTTPExecutor {
    let context: NIOSSLContext
    let pins: Set<PublicKeyPin>
    let connectTimeout: TimeAmount
    let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

    init(trust: ServerTrust, connectTimeout: Duration = .seconds(10)) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        if case .certificates(let roots) = trust.roots {
            configuration.trustRoots = .certificates(
                try roots.map { try NIOSSLCertificate(bytes: $0.serializeAsPEM().derBytes, format: .der) }
            )
        }
        self.context = try NIOSSLContext(configuration: configuration)
        self.pins = trust.pins
        self.connectTimeout = .nanoseconds(connectTimeout.nanoseconds)
    }

    /// The handshake found a key that is not pinned.
    struct PinMismatch: Error {}

    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws -> R {
        guard let url = URL(string: request.url), url.scheme == "https", let host = url.host else {
            throw TransportError(.invalidConfiguration, "a custom server trust needs an https:// URL")
        }
        let port = url.port ?? 443
        let pins = self.pins
        let context = self.context
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let (channel, handshakeDone) = try await ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler._makeSSLClientHandler(
                        context: context,
                        serverHostname: isAddress ? nil : host,
                        additionalPeerCertificateVerificationCallback: { leaf, channel in
                            let spki = (try? leaf.extractPublicKey().toSPKIBytes()) ?? []
                            guard pins.isEmpty || pins.contains(where: { $0.matches(subjectPublicKeyInfo: spki) })
                            else {
                                return channel.eventLoop.makeFailedFuture(PinMismatch())
                            }
                            return channel.eventLoop.makeSucceededVoidFuture()
                        }
                    )
                    let handshake = HandshakeWaiter(promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandlers([tls, handshake])
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    let wrapped = try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel
                    )
                    return (wrapped, handshake.promise.futureResult)
                }
            }
        // Nothing is written before the handshake (chain, host name and pin) succeeded.
        do {
            try await handshakeDone.get()
        } catch {
            try? await channel.channel.close()
            throw error
        }
        // The deadline and cancellation both close the channel, which ends every pending read and write.
        let deadline = channel.channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await channel.executeThenClose { inbound, outbound in
                try await Self.send(request, host: url.port.map { "\(host):\($0)" } ?? host, url: url, to: outbound)
                let parts = IteratorBox(inbound.makeAsyncIterator())
                var status = 0
                head: while let part = try await parts.base.next() {
                    if case .head(let head) = part, head.status.code >= 200 {
                        status = Int(head.status.code)
                        break head
                    }
                }
                guard status != 0 else { throw ChannelError.eof }
                return try await handle(
                    status,
                    ResponseBody {
                        while let part = try await parts.base.next() {
                            switch part {
                            case .body(let bytes): return bytes
                            case .end: return nil
                            case .head: continue
                            }
                        }
                        throw ChannelError.eof
                    }
                )
            }
        } onCancel: {
            channel.channel.close(promise: nil)
        }
    }

    private static func send(
        _ request: OutgoingRequest,
        host: String,
        url: URL,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) async throws {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: request.method.method, uri: target)
        head.headers = request.headers
        head.headers.replaceOrAdd(name: "Host", value: host)
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        switch request.body {
        case .none:
            if request.method != .GET { head.headers.replaceOrAdd(name: "Content-Length", value: "0") }
            try await outbound.write(.head(head))
        case .bytes(let bytes):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(bytes.readableBytes))
            try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(bytes))])
        case .file(let path, let length, let progress):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
            try await outbound.write(.head(head))
            for try await chunk in FileChunks(path: path, progress: progress) {
                try await outbound.write(.body(.byteBuffer(chunk)))
            }
        }
        try await outbound.write(.end(nil))
    }
}

/// Completes its promise when the TLS handshake succeeds, fails it with the handshake's error otherwise.
private final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { promise.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
