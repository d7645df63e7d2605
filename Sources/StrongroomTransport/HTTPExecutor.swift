// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
public import NIOCore
package import NIOHTTP1
import StrongroomCore

/// One HTTP exchange, independent of the client library that carries it.
package struct OutgoingRequest: Sendable {
    /// What is sent after the head.
    package enum Body: Sendable {
        case none
        case bytes(ByteBuffer)
        /// A file streamed from disk in 64 KiB chunks; `progress` gets the bytes sent so far.
        case file(path: String, length: Int64, progress: (@Sendable (Int64) -> Void)?)
        /// Chunks from the caller's sequence, made once per exchange (`Content-Length` when `length` is known,
        /// chunked transfer encoding otherwise).
        case stream(length: Int64?, makeChunks: @Sendable () -> () async throws -> ByteBuffer?)

        /// For a file or a stream: its length when known and a reader of its chunks; nil for a body in memory.
        func streamed() -> (length: Int64?, next: () async throws -> ByteBuffer?)? {
            switch self {
            case .none, .bytes: return nil
            case .file(let path, let length, let progress):
                var chunks = FileChunks(path: path, progress: progress).makeAsyncIterator()
                return (length, { try await chunks.next() })
            case .stream(let length, let makeChunks): return (length, makeChunks())
            }
        }

        /// Whether the body can be sent a second time (a retry): bytes in memory and nothing can; a file or a
        /// stream has been consumed.
        var isReplayable: Bool {
            switch self {
            case .none, .bytes: true
            case .file, .stream: false
            }
        }
    }

    package var method: HTTPVerb
    package var url: String
    package var headers: HTTPHeaders = [:]
    package var body: Body = .none

    package init(method: HTTPVerb, url: String) {
        self.method = method
        self.url = url
    }

    /// Adds a header field.
    package mutating func addHeader(_ name: String, _ value: String) { headers.add(name: name, value: value) }
}

/// An answer's body, read once, chunk by chunk, while the exchange is open; reading from the socket pauses while
/// the reader falls behind. A failure while reading it is the transport's (``SecureChannel`` maps it to a
/// ``TransportError``), whoever iterates.
public struct ResponseBody: AsyncSequence {
    public typealias Element = ByteBuffer
    let nextChunk: () async throws -> ByteBuffer?

    public func makeAsyncIterator() -> Iterator { Iterator(nextChunk: nextChunk) }

    /// Takes the body's chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        let nextChunk: () async throws -> ByteBuffer?
        public mutating func next() async throws -> ByteBuffer? {
            do {
                return try await nextChunk()
            } catch {
                throw StreamFailure(underlying: error)
            }
        }
    }

    /// The whole body, refusing more than `limit` bytes.
    public func collect(upTo limit: Int) async throws -> ByteBuffer {
        var all = ByteBuffer()
        for try await var chunk in self {
            guard all.readableBytes + chunk.readableBytes <= limit else {
                throw StreamFailure(underlying: ResponseTooLarge())
            }
            all.writeBuffer(&chunk)
        }
        return all
    }

    /// The body was larger than the caller accepts.
    struct ResponseTooLarge: Error {}

    /// Reading the body failed.
    struct StreamFailure: Error {
        let underlying: any Error
    }
}

/// A single-consumer iterator shared with the closure that drains it.
final class IteratorBox<Base: AsyncIteratorProtocol> {
    var base: Base
    init(_ base: Base) { self.base = base }
}

/// The status line and header fields of an answer.
package struct ResponseHead: Sendable {
    package var status: Int
    package var headers: HTTPHeaders

    /// The first value of the header field `name` (case-insensitive), or nil.
    package func field(_ name: String) -> String? { headers.first(name: name) }
}

/// Carries requests: ``NIOHTTPExecutor`` for plain HTTP from the default client and for a customised trust,
/// AsyncHTTPClient otherwise.
protocol HTTPExecutor: Sendable {
    /// Sends `request` and hands the answer's head and body to `handle` while the exchange is open; the whole
    /// exchange must finish within `timeout`.
    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (_ head: ResponseHead, _ body: ResponseBody) async throws -> R
    ) async throws -> R
}

/// The pooled AsyncHTTPClient path.
struct AsyncHTTPClientExecutor: HTTPExecutor {
    let http: HTTPClient

    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (ResponseHead, ResponseBody) async throws -> R
    ) async throws -> R {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = request.method.method
        outgoing.headers = request.headers
        switch request.body {
        case .none: break
        case .bytes(let bytes): outgoing.body = .bytes(bytes)
        case .file(let path, let length, let progress):
            let chunks = FileChunks(path: path, progress: progress)
            outgoing.body = .stream(chunks, length: .known(length))
        case .stream(let length, let makeChunks):
            let chunks = ChunkSequence(makeChunks: makeChunks)
            outgoing.body = .stream(chunks, length: length.map { .known($0) } ?? .unknown)
        }
        let response = try await http.execute(outgoing, timeout: .nanoseconds(timeout.nanoseconds))
        let iterator = IteratorBox(response.body.makeAsyncIterator())
        return try await handle(
            ResponseHead(status: Int(response.status.code), headers: response.headers),
            ResponseBody { try await iterator.base.next() }
        )
    }
}

/// A caller's chunks as the async sequence AsyncHTTPClient takes.
struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let makeChunks: @Sendable () -> () async throws -> ByteBuffer?

    func makeAsyncIterator() -> Iterator { Iterator(next: makeChunks()) }

    struct Iterator: AsyncIteratorProtocol {
        let next: () async throws -> ByteBuffer?
        mutating func next() async throws -> ByteBuffer? { try await next() }
    }
}
