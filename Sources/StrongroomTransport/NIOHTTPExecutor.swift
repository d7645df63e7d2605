// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import StrongroomCore
import SwiftASN1
import Synchronization
import X509

/// HTTP/1.1 and HTTP/2 over SwiftNIO with kept-alive connections: plain `http://` for the default client, and HTTPS
/// with the server verified inside the TLS handshake (custom roots, per-host SPKI pins, a client certificate),
/// HTTP/2 when the server chooses it by ALPN (one connection per host, each exchange on a stream of its own:
/// ``MultiplexedConnections``), through an ``HTTPProxy`` when configured.
///
/// AsyncHTTPClient cannot run a certificate callback, so clients with a custom ``ServerTrust`` or a
/// ``ClientIdentity`` use this: ``ServerVerifier`` checks chain, host name and pins in place of BoringSSL while the
/// handshake waits, so the client certificate is sent only after that check passed, and request bytes only once
/// the handshake succeeded: a server with another key sees neither. Plain HTTP goes through it too, because a
/// request here costs one hop to the connection's event loop and one wake-up when the answer is in
/// (``HTTPConnection``), where AsyncHTTPClient's state machines cost a third of a loopback round trip. Connections
/// are kept alive in a ``ConnectionPool`` and reused only after an exchange that read its whole answer; the
/// handshake and every exchange are bounded by the request's timeout.
struct NIOHTTPExecutor: HTTPExecutor {
    /// How connections are secured.
    enum Security {
        /// Plain HTTP (`http://` URLs only).
        case plain
        /// TLS verified by ``ServerVerifier`` (`https://` URLs only).
        case tls(NIOSSLContext, ServerVerifier, presentsIdentity: Bool)

        var isPlain: Bool {
            if case .plain = self { return true }
            return false
        }
    }

    let security: Security
    /// The proxy every connection goes through, or nil.
    let proxy: HTTPProxy?
    /// Its `Proxy-Authorization` value (made once, not per request).
    let proxyAuthorization: String?
    let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// Kept-alive connections, shared by copies of this executor and closed with the last of them.
    let pool: ConnectionPool
    /// HTTP/2 connections (one per host, carrying every exchange with it at once), shared likewise.
    let multiplexed = MultiplexedConnections()

    /// An executor for plain `http://` URLs (through `proxy` when given); idle kept-alive connections close after
    /// `idleTimeout`.
    init(proxy: HTTPProxy? = nil, idleTimeout: Duration = ConnectionPool.defaultIdleTimeout) {
        self.security = .plain
        self.proxy = proxy
        self.proxyAuthorization = proxy?.authorization
        self.pool = ConnectionPool(idleTimeout: idleTimeout)
    }

    /// An executor for `https://` URLs with `trust` checked in the handshake and `identity` presented, through a
    /// tunnel of `proxy` when given.
    init(
        trust: ServerTrust,
        identity: ClientIdentity? = nil,
        proxy: HTTPProxy? = nil
    ) throws {
        self.proxy = proxy
        self.proxyAuthorization = proxy?.authorization
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // HTTP/2 where the server offers it (one connection per host, each exchange on a stream), else HTTP/1.1.
        configuration.applicationProtocols = ["h2", "http/1.1"]
        try identity?.apply(to: &configuration)
        self.security = .tls(
            try NIOSSLContext(configuration: configuration),
            ServerVerifier(trust: trust),
            presentsIdentity: identity != nil
        )
        self.pool = ConnectionPool(idleTimeout: ConnectionPool.defaultIdleTimeout)
    }

    private var scheme: String { security.isPlain ? "http" : "https" }

    /// What the verification callback saw: the presented chain and, when it refused, why.
    final class HandshakeRecord: Sendable {
        let reason = Mutex<String?>(nil)
        let chain = Mutex<[NIOSSLCertificate]>([])
    }

    /// An open connection (for HTTPS, one whose handshake — chain, host name, pins, then the client certificate —
    /// succeeded) and what it negotiated.
    struct Connection {
        /// The connection; for HTTP/2 its channel is the connection's, and exchanges go on streams of `multiplexer`.
        let connection: HTTPConnection
        let record: HandshakeRecord
        let negotiated: Negotiated
    }

    /// What a connection settled on once the handshake (and the protocol's pipeline) was done.
    struct Negotiated: Sendable {
        /// The ALPN protocol, when the server chose one.
        let applicationProtocol: String?
        /// Opens streams on an HTTP/2 connection; nil for HTTP/1.1.
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer?

        /// Plain HTTP, or TLS without ALPN.
        static let http1 = Negotiated(applicationProtocol: nil, multiplexer: nil)
    }

    /// Socket reads as NIO sizes them (small for small answers, growing while reads fill the buffer), but up to
    /// 256 KiB rather than NIO's 64 KiB: a download then arrives in a quarter of the reads, hand-offs to the
    /// checksum and decryption included — measured on this project's two-core machine, a 128 MiB `readFile` went
    /// from ≈ 455 to ≈ 500 MB/s (1 MiB was no faster). The response queue's high-water mark still bounds memory.
    private static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 << 10)

    /// Connects to `host:port` (through the proxy's tunnel when there is one) and, for HTTPS, completes the TLS
    /// handshake, all within `timeout` — the request's own time left, so connecting has no shorter limit of its
    /// own: a busy machine that takes long to connect fails only when the request would have (a proxy or server
    /// that never finishes is cut off all the same). Nothing is written before it succeeded. An IP address is
    /// connected to directly, without a name lookup (which runs on a Dispatch thread and hops back to the event
    /// loop: two waits a loopback connection does not need).
    func connect(host: String, port: Int, timeout: Duration) async throws -> Connection {
        let record = HandshakeRecord()
        let responses = ResponseQueue()
        let security = self.security
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        // Through a proxy, TLS runs inside a CONNECT tunnel; plain HTTP goes to the proxy in absolute form.
        let tunnel: HTTPProxy? = if case .tls = security { proxy } else { nil }
        let target = isAddress && host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let authorization = proxyAuthorization
        let initialize: @Sendable (any Channel) -> EventLoopFuture<(any Channel, EventLoopFuture<Negotiated>?)> = {
            channel in
            channel.eventLoop.makeCompletedFuture {
                guard tunnel != nil else {
                    let handshake = try Self.prepare(channel, security, host, isAddress, record, responses)
                    return (channel, handshake)
                }
                // The TLS handshake starts once the tunnel is open.
                let opened = channel.eventLoop.makePromise(of: Void.self)
                try channel.pipeline.syncOperations.addHandler(
                    ProxyTunnel(target: target, authorization: authorization, promise: opened)
                )
                let handshake = opened.futureResult.flatMapThrowing {
                    try Self.prepare(channel, security, host, isAddress, record, responses)
                }
                return (channel, handshake.flatMap { $0 ?? channel.eventLoop.makeSucceededFuture(.http1) })
            }
        }
        let (dialHost, dialPort) = (proxy?.host ?? host, proxy?.port ?? port)
        let (channel, ready): (any Channel, EventLoopFuture<Negotiated>?)
        do {
            let bootstrap = ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(max(0, timeout.nanoseconds)))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelOption(.recvAllocator, value: Self.receiveBuffers)
            if let address = try? SocketAddress(ipAddress: dialHost, port: dialPort) {
                (channel, ready) = try await bootstrap.connect(to: address, channelInitializer: initialize)
            } else {
                (channel, ready) = try await bootstrap.connect(
                    host: dialHost,
                    port: dialPort,
                    channelInitializer: initialize
                )
            }
        } catch {
            guard let proxy else { throw error }
            throw TransportError(
                .unreachable,
                "the proxy at \(proxy) could not be reached: is it running, on this address and port?",
                underlying: error
            )
        }
        let connection = HTTPConnection(channel: channel, responses: responses)
        guard let ready else {
            return Connection(connection: connection, record: record, negotiated: .http1)
        }
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        do {
            return Connection(connection: connection, record: record, negotiated: try await ready.get())
        } catch {
            // Closing a channel being abandoned: the request's own error is the one to report.
            try? await channel.close()
            if let reason = record.reason.withLock({ $0 }) {
                throw TransportError(.untrustedServer, reason, underlying: error)
            }
            if let refusal = error as? ProxyTunnel.Refusal, !refusal.closed, let proxy {
                throw TransportError(.unreachable, "\(refusal.message) (proxy \(proxy))", status: refusal.status)
            }
            throw error
        }
    }

    /// Sets up `channel` for HTTP (TLS first, verified by the executor's ``ServerVerifier``, when HTTPS) and
    /// returns the handshake's outcome (nil for plain HTTP): the protocol the server chose by ALPN, with HTTP/2's
    /// or HTTP/1.1's handlers in place behind TLS (what arrives meanwhile waits). Runs on the channel's event loop.
    private static func prepare(
        _ channel: any Channel,
        _ security: Security,
        _ host: String,
        _ isAddress: Bool,
        _ record: HandshakeRecord,
        _ responses: ResponseQueue
    ) throws -> EventLoopFuture<Negotiated>? {
        guard case .tls(let context, let verifier, _) = security else {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(responses)
            return nil
        }
        do {
            let tls = try NIOSSLClientHandler(
                context: context,
                serverHostname: isAddress ? nil : host,
                customVerificationCallback: { presented, promise in
                    record.chain.withLock { $0 = presented }
                    // On this connection's event loop, not the global pool (see EventLoopTaskExecutor).
                    Task(executorPreference: EventLoopTaskExecutor(promise.futureResult.eventLoop)) {
                        guard
                            let reason = await verifier.failure(
                                of: presented,
                                host: host,
                                isAddress: isAddress
                            )
                        else { return promise.succeed(.certificateVerified) }
                        record.reason.withLock { $0 = reason }
                        promise.succeed(.failed)
                    }
                }
            )
            let handshake = HandshakeWaiter(promise: channel.eventLoop.makePromise())
            let promise = handshake.promise
            let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
                do {
                    let negotiated: Negotiated
                    if case .negotiated("h2") = result {
                        let multiplexer = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                            mode: .client,
                            connectionConfiguration: .init(),
                            streamConfiguration: .init(),
                            inboundStreamInitializer: { $0.close() }  // a server push is not wanted
                        )
                        try channel.pipeline.syncOperations.addHandler(ConnectionErrorCloser())
                        negotiated = Negotiated(applicationProtocol: "h2", multiplexer: multiplexer)
                    } else {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(responses)
                        let name: String? = if case .negotiated(let name) = result { name } else { nil }
                        negotiated = Negotiated(applicationProtocol: name, multiplexer: nil)
                    }
                    promise.succeed(negotiated)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    promise.fail(error)
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            try channel.pipeline.syncOperations.addHandlers([tls, handshake, negotiation])
            return promise.futureResult
        }
    }

    /// Connects to `url`'s host as a request would, and reports what the handshake negotiated; sends nothing.
    func probe(_ url: URL, timeout: Duration) async throws -> ConnectionSecurity {
        guard url.scheme == "https", let host = url.host, case .tls(_, _, let presentsIdentity) = security else {
            throw TransportError(.invalidConfiguration, "only an https:// URL has a TLS connection to describe")
        }
        let port = url.port ?? 443
        let opened = try await connect(host: host, port: port, timeout: timeout)
        let channel = opened.connection.channel
        let version: TLSVersion?
        do {
            version = try await channel.nioSSL_tlsVersion().get()
        } catch {
            // Closing a channel being abandoned: the request's own error is the one to report.
            try? await channel.close()
            throw error
        }
        // Closing a channel being abandoned: the request's own error is the one to report.
        try? await channel.close()
        let chain = try opened.record.chain.withLock { $0 }.map {
            try Certificate(derEncoded: try $0.toDERBytes())
        }
        return ConnectionSecurity(
            host: host,
            port: port,
            tlsVersion: version.map(ConnectionSecurity.name(of:)) ?? "unknown",
            applicationProtocol: opened.negotiated.applicationProtocol,
            serverChain: chain,
            presentsClientCertificate: presentsIdentity
        )
    }

    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (ResponseHead, ResponseBody) async throws -> R
    ) async throws -> R {
        guard let url = URL(string: request.url), url.scheme == scheme, let host = url.host else {
            if case .plain = security {
                throw TransportError(.invalidConfiguration, "the plain HTTP executor needs an http:// URL")
            }
            throw TransportError(.invalidConfiguration, "a custom server trust needs an https:// URL")
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let key = "\(host):\(port)"
        // One deadline for the whole request, a retry included.
        let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
        // HTTP/2: a new stream on the host's connection (or on the one being opened, once it is). One that cannot
        // open a stream (the server sent GOAWAY, say) is dropped, and the request goes on a new connection.
        var first: EventLoopPromise<MultiplexedConnections.Entry?>?
        switch multiplexed.route(to: key, negotiates: !security.isPlain, on: group.next()) {
        case .stream(let shared):
            if let stream = try? await shared.openStream(idleTimeout: pool.idleTimeout) {
                return try await exchange(request, url: url, host: host, on: stream, key: nil, deadline, handle)
            }
            multiplexed.drop(shared, for: key)
        case .wait(let opening):
            if let shared = try await opening.get(),
                let stream = try? await shared.openStream(idleTimeout: pool.idleTimeout)
            {
                return try await exchange(request, url: url, host: host, on: stream, key: nil, deadline, handle)
            }
        case .connect(let promise):
            first = promise
        }
        // A kept-alive connection the server closed while it sat idle fails its first write before a byte left;
        // then (and only then) the request goes once more on a new connection. File bodies are not re-sent. A
        // channel closed by this request's own deadline or cancellation fails the same way, and is not retried:
        // its timer fires at the deadline or later, so a failure seen before the deadline is the server's close.
        if first == nil, let pooled = pool.take(key) {
            do {
                return try await exchange(request, url: url, host: host, on: pooled, key: key, deadline, handle)
            } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
                if !request.body.isReplayable { throw error }
                if Task.isCancelled || NIODeadline.now() >= deadline { throw error }
            }
        }
        let remaining = Duration.nanoseconds((deadline - NIODeadline.now()).nanoseconds)
        let fresh: Connection
        do {
            fresh = try await connect(host: host, port: port, timeout: remaining)
        } catch {
            if let first { multiplexed.opened(nil, for: key, promise: first, failed: true) }
            throw error
        }
        guard let multiplexer = fresh.negotiated.multiplexer else {
            if let first { multiplexed.opened(nil, for: key, promise: first) }
            return try await exchange(request, url: url, host: host, on: fresh.connection, key: key, deadline, handle)
        }
        let channel = fresh.connection.channel
        let entry = MultiplexedConnections.Entry(channel: channel, multiplexer: multiplexer)
        let shared: MultiplexedConnections.Entry
        if let first {
            shared = entry
            multiplexed.opened(entry, for: key, promise: first)
        } else {
            shared = multiplexed.adopt(entry, for: key)
            if shared !== entry { channel.close(promise: nil) }  // another request opened one first
        }
        let stream = try await shared.openStream(idleTimeout: pool.idleTimeout)
        return try await exchange(request, url: url, host: host, on: stream, key: nil, deadline, handle)
    }

    /// One request and its answer on a connection (or HTTP/2 stream) this exchange alone holds. An HTTP/1.1
    /// connection goes back to the pool under `key` only when the whole answer was read, the server keeps the
    /// connection and nothing failed; otherwise it is closed. A stream (`key` nil) is closed.
    private func exchange<R>(
        _ request: OutgoingRequest,
        url: URL,
        host: String,
        on connection: HTTPConnection,
        key: String?,
        _ deadline: NIODeadline,
        _ handle: (ResponseHead, ResponseBody) async throws -> R
    ) async throws -> R {
        let channel = connection.channel
        let responses = connection.responses
        var clean = false
        // The deadline and cancellation both close the channel, which ends every pending read and write.
        connection.expire(at: deadline) { channel.close(promise: nil) }
        defer {
            connection.cancelExpiry()
            // A cancelled task's handler below may be closing the channel right now (the close runs later, on the
            // event loop, so the channel still looks open): such a connection never goes back to the pool.
            if let key, clean && connection.isReusable && !Task.isCancelled {
                pool.put(connection, key)
            } else {
                connection.close()
            }
        }
        return try await withTaskCancellationHandler {
            // A write can fail although the server has the request: it answered and closed while the last write was
            // still being acknowledged, or answered early (413) and closed. Its answer is still queued, so it
            // decides; the write's error stands only if no answer came. Any other failure (a file that cannot be
            // read, cancellation) ends the exchange.
            var sendFailure: ChannelError?
            var written: EventLoopFuture<Void>?
            do {
                written = try await Self.send(
                    request,
                    host: url.port.map { "\(host):\($0)" } ?? host,
                    url: url,
                    forwardingProxy: security.isPlain && proxy != nil,
                    proxyAuthorization: proxyAuthorization,
                    on: connection
                )
            } catch let error as ChannelError
                where [.ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed].contains(error)
            {
                sendFailure = error
            }
            var answer = ResponseHead(status: 0, headers: [:])
            var keepAlive = false
            do {
                head: while true {
                    if case .head(let head) = try await responses.next(), head.status.code >= 200 {
                        answer = ResponseHead(status: Int(head.status.code), headers: head.headers)
                        keepAlive = head.isKeepAlive
                        break head
                    }
                }
            } catch {
                // No answer: the write's own failure explains it best (a connection closed before a byte left is
                // what lets `execute` try a fresh one), unless the read ended on TLS: then the server's alert (a
                // refused client certificate, say) is why the write found the connection closed.
                if let sendFailure, !(error is BoringSSLError || error is NIOSSLError) { throw sendFailure }
                do {
                    try await written?.get()
                } catch let failure as ChannelError {
                    throw failure
                }
                throw error
            }
            // Through a forwarding proxy, 407 is the proxy's answer, not the server's: the request never reached it.
            if security.isPlain, let proxy, answer.status == 407 {
                throw TransportError(
                    .unreachable,
                    "\(ProxyTunnel.credentialsWanted) (proxy \(proxy))",
                    status: 407
                )
            }
            var ended = false
            let result = try await handle(
                answer,
                ResponseBody {
                    while true {
                        switch try await responses.next() {
                        case .body(let bytes): return bytes
                        case .end:
                            ended = true
                            return nil
                        case .head: continue
                        }
                    }
                }
            )
            clean = ended && keepAlive && sendFailure == nil
            return result
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Writes `request`. A body held in memory goes with its head in one hop to the event loop, and the write's
    /// outcome is returned as a future (the answer is awaited, not the write); a file or a caller's stream is sent
    /// chunk by chunk by a task of its own while the answer is read, each write awaited, so it is read no faster
    /// than the socket takes it.
    private static func send(
        _ request: OutgoingRequest,
        host: String,
        url: URL,
        forwardingProxy: Bool,
        proxyAuthorization: String?,
        on connection: HTTPConnection
    ) async throws -> EventLoopFuture<Void>? {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        // Through a proxy, a plain request names its server: `GET http://host:port/path` (RFC 9112, 3.2.2).
        if forwardingProxy { target = "http://\(host)\(target)" }
        var head = HTTPRequestHead(version: .http1_1, method: request.method.method, uri: target)
        head.headers = request.headers
        head.headers.replaceOrAdd(name: "Host", value: host)
        if forwardingProxy, let authorization = proxyAuthorization {
            head.headers.replaceOrAdd(name: "Proxy-Authorization", value: authorization)
        }
        let channel = connection.channel
        connection.writeStarted()
        guard let (length, next) = request.body.streamed() else {
            var body: ByteBuffer?
            if case .bytes(let bytes) = request.body {
                head.headers.replaceOrAdd(name: "Content-Length", value: String(bytes.readableBytes))
                body = bytes
            } else if request.method != .GET {
                head.headers.replaceOrAdd(name: "Content-Length", value: "0")
            }
            let finalHead = head
            let finalBody = body
            let written = channel.eventLoop.makePromise(of: Void.self)
            channel.eventLoop.execute {
                written.futureResult.whenComplete { connection.writeFinished($0) }
                guard channel.isActive else { return written.fail(ChannelError.ioOnClosedChannel) }
                channel.write(HTTPClientRequestPart.head(finalHead), promise: nil)
                if let finalBody { channel.write(HTTPClientRequestPart.body(.byteBuffer(finalBody)), promise: nil) }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: written)
            }
            return written.futureResult
        }
        if let length {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        } else {
            head.headers.remove(name: "Content-Length")
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        }
        do {
            // The head first, awaited: a pooled connection the server closed fails here, before a chunk is taken.
            try await channel.writeAndFlush(HTTPClientRequestPart.head(head))
        } catch {
            connection.writeFinished(.failure(error))
            throw error
        }
        // The body goes on while the answer is read: a server that answers as it reads (an echo, a transform) or
        // answers early never waits for a writer that waits for it. The exchange owns the outcome through the
        // returned future; when the exchange ends first, it closes the connection and the writer's next write fails.
        let written = channel.eventLoop.makePromise(of: Void.self)
        let chunks = ChunkSource(next: next)
        Task {
            do {
                while let chunk = try await chunks.next() {
                    try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(chunk)))
                }
                try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
                connection.writeFinished(.success(()))
                written.succeed()
            } catch {
                // A body that cannot be read (a file gone, the caller's sequence failing) ends the exchange: the
                // read waiting for the answer fails, and the exchange reports this error.
                connection.writeFinished(.failure(error))
                written.fail(error)
                channel.close(promise: nil)
            }
        }
        return written.futureResult
    }

    /// A body's chunk reader, handed to the one task that writes the body (it is used by that task alone).
    private struct ChunkSource: @unchecked Sendable {
        let next: () async throws -> ByteBuffer?
    }
}

/// Fails the connection's promise with the TLS handshake's error (the ALPN handler after it succeeds the promise
/// once the negotiated protocol's handlers are in place); later errors find it completed and change nothing.
private final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let promise: EventLoopPromise<NIOHTTPExecutor.Negotiated>

    init(promise: EventLoopPromise<NIOHTTPExecutor.Negotiated>) { self.promise = promise }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    /// A channel that closes before it was ever active (the TCP connection refused) removes its handlers without a
    /// `channelInactive`: the promise must still be completed (NIO traps on a promise it was never given an answer).
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }
}

/// Closes an HTTP/2 connection on an error that reaches the end of its pipeline (a protocol error, a TLS failure):
/// its streams fail with it, and the next request opens a new connection.
private final class ConnectionErrorCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
