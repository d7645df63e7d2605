// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import StrongroomCore
import SwiftASN1
import Synchronization
import X509

/// HTTPS over SwiftNIO with the server verified inside the TLS handshake (custom roots, per-host SPKI pins,
/// a client certificate).
///
/// AsyncHTTPClient cannot run a certificate callback, so clients with a custom ``ServerTrust`` or a
/// ``ClientIdentity`` use this: ``ServerVerifier`` checks chain, host name and pins in place of BoringSSL while the
/// handshake waits, so the client certificate is sent only after that check passed, and request bytes only once
/// the handshake succeeded: a server with another key sees neither. Connections are kept alive (HTTP/1.1) in a
/// ``ConnectionPool`` and reused only after an exchange that read its whole answer; the handshake and every
/// exchange are bounded by the request's timeout.
struct PinningHTTPExecutor: HTTPExecutor {
    let context: NIOSSLContext
    let verifier: ServerVerifier
    let connectTimeout: TimeAmount
    let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

    let presentsIdentity: Bool
    /// Kept-alive connections, shared by copies of this executor and closed with the last of them.
    let pool = ConnectionPool()

    init(trust: ServerTrust, identity: ClientIdentity? = nil, connectTimeout: Duration = .seconds(10)) throws {
        self.presentsIdentity = identity != nil
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        try identity?.apply(to: &configuration)
        self.context = try NIOSSLContext(configuration: configuration)
        self.verifier = ServerVerifier(trust: trust)
        self.connectTimeout = .nanoseconds(connectTimeout.nanoseconds)
    }

    /// What the verification callback saw: the presented chain and, when it refused, why.
    final class HandshakeRecord: Sendable {
        let reason = Mutex<String?>(nil)
        let chain = Mutex<[NIOSSLCertificate]>([])
    }

    /// A connection whose handshake (chain, host name, pins, then the client certificate) succeeded, and what it
    /// negotiated.
    struct Connection {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        let record: HandshakeRecord
        let applicationProtocol: String?
    }

    /// Connects to `host:port` and completes the TLS handshake within `timeout` (a server that never finishes it is
    /// cut off); nothing is written before it succeeded.
    func connect(host: String, port: Int, timeout: Duration) async throws -> Connection {
        let verifier = self.verifier
        let context = self.context
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let record = HandshakeRecord()
        let (channel, handshakeDone) = try await ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler(
                        context: context,
                        serverHostname: isAddress ? nil : host,
                        customVerificationCallback: { presented, promise in
                            record.chain.withLock { $0 = presented }
                            // On this connection's event loop, not the global pool (see EventLoopTaskExecutor).
                            Task(executorPreference: EventLoopTaskExecutor(promise.futureResult.eventLoop)) {
                                guard
                                    let reason = await verifier.failure(of: presented, host: host, isAddress: isAddress)
                                else { return promise.succeed(.certificateVerified) }
                                record.reason.withLock { $0 = reason }
                                promise.succeed(.failed)
                            }
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
        let deadline = channel.channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        do {
            let applicationProtocol = try await handshakeDone.get()
            return Connection(channel: channel, record: record, applicationProtocol: applicationProtocol)
        } catch {
            try? await channel.channel.close()
            if let reason = record.reason.withLock({ $0 }) {
                throw TransportError(.untrustedServer, reason, underlying: error)
            }
            throw error
        }
    }

    /// Connects to `url`'s host as a request would, and reports what the handshake negotiated; sends nothing.
    func probe(_ url: URL, timeout: Duration) async throws -> ConnectionSecurity {
        guard url.scheme == "https", let host = url.host else {
            throw TransportError(.invalidConfiguration, "only an https:// URL has a TLS connection to describe")
        }
        let port = url.port ?? 443
        let connection = try await connect(host: host, port: port, timeout: timeout)
        // Through executeThenClose, so the channel's writer is finished before it goes away.
        let version = try await connection.channel.executeThenClose { _, _ in
            try await connection.channel.channel.nioSSL_tlsVersion().get()
        }
        let chain = try connection.record.chain.withLock { $0 }.map {
            try Certificate(derEncoded: try $0.toDERBytes())
        }
        return ConnectionSecurity(
            host: host,
            port: port,
            tlsVersion: version.map(ConnectionSecurity.name(of:)) ?? "unknown",
            applicationProtocol: connection.applicationProtocol,
            serverChain: chain,
            presentsClientCertificate: presentsIdentity
        )
    }

    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws -> R {
        guard let url = URL(string: request.url), url.scheme == "https", let host = url.host else {
            throw TransportError(.invalidConfiguration, "a custom server trust needs an https:// URL")
        }
        let port = url.port ?? 443
        let key = "\(host):\(port)"
        // A kept-alive connection the server closed while it sat idle fails its first write before a byte left;
        // then (and only then) the request goes once more on a new connection. File bodies are not re-sent.
        if let pooled = pool.take(key), let lease = await pooled.borrow() {
            do {
                return try await exchange(request, url: url, host: host, on: pooled, lease, key: key, timeout, handle)
            } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
                if case .file = request.body { throw error }
            }
        }
        let fresh = PooledConnection(try await connect(host: host, port: port, timeout: timeout).channel)
        guard let lease = await fresh.borrow() else { throw ChannelError.eof }
        return try await exchange(request, url: url, host: host, on: fresh, lease, key: key, timeout, handle)
    }

    /// One request and its answer on a borrowed connection, which goes back to the pool only when the whole answer
    /// was read, the server keeps the connection and nothing failed.
    private func exchange<R>(
        _ request: OutgoingRequest,
        url: URL,
        host: String,
        on connection: PooledConnection,
        _ lease: PooledConnection.Lease,
        key: String,
        _ timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
    ) async throws -> R {
        let channel = connection.channel
        var clean = false
        // The deadline and cancellation both close the channel, which ends every pending read and write.
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            channel.close(promise: nil)
        }
        defer {
            deadline.cancel()
            clean = clean && channel.isActive
            lease.giveBack.resume(returning: clean)
            if clean { pool.put(connection, key) }
        }
        return try await withTaskCancellationHandler {
            // A write can fail although the server has the request: it answered and closed while the last write was
            // still being acknowledged, or answered early (413) and closed. Its answer is still in the inbound
            // stream, so it decides; the write's error stands only if no answer came. Any other failure (a file
            // that cannot be read, cancellation) ends the exchange.
            var sendFailure: ChannelError?
            do {
                try await Self.send(
                    request,
                    host: url.port.map { "\(host):\($0)" } ?? host,
                    url: url,
                    to: lease.handles.outbound
                )
            } catch let error as ChannelError
                where [.ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed].contains(error)
            {
                sendFailure = error
            }
            let parts = lease.handles.parts
            var status = 0
            var keepAlive = false
            head: while let part = try await parts.base.next() {
                if case .head(let head) = part, head.status.code >= 200 {
                    status = Int(head.status.code)
                    keepAlive = head.isKeepAlive
                    break head
                }
            }
            guard status != 0 else { throw sendFailure ?? .eof }
            var ended = false
            let result = try await handle(
                status,
                ResponseBody {
                    while let part = try await parts.base.next() {
                        switch part {
                        case .body(let bytes): return bytes
                        case .end:
                            ended = true
                            return nil
                        case .head: continue
                        }
                    }
                    throw ChannelError.eof
                }
            )
            clean = ended && keepAlive && sendFailure == nil
            return result
        } onCancel: {
            channel.close(promise: nil)
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

/// Completes its promise with the negotiated ALPN protocol when the TLS handshake succeeds, fails it with the
/// handshake's error otherwise.
private final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let promise: EventLoopPromise<String?>

    init(promise: EventLoopPromise<String?>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent { promise.succeed(negotiated) }
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
