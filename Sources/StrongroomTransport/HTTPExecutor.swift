// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
package import NIOCore
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

/// The answer's body, read once, chunk by chunk, while the exchange is open. A failure while reading it is the
/// transport's (``HTTPTransport`` maps it to a ``TransportError``), whoever iterates.
package struct ResponseBody: AsyncSequence {
    package typealias Element = ByteBuffer
    let nextChunk: () async throws -> ByteBuffer?

    package func makeAsyncIterator() -> Iterator { Iterator(nextChunk: nextChunk) }

    package struct Iterator: AsyncIteratorProtocol {
        let nextChunk: () async throws -> ByteBuffer?
        package mutating func next() async throws -> ByteBuffer? {
            do {
                return try await nextChunk()
            } catch {
                throw StreamFailure(underlying: error)
            }
        }
    }

    /// The whole body, refusing more than `limit` bytes.
    package func collect(upTo limit: Int) async throws -> ByteBuffer {
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

/// Carries requests: ``NIOHTTPExecutor`` for plain HTTP from the default client and for a customised trust,
/// AsyncHTTPClient otherwise.
protocol HTTPExecutor: Sendable {
    /// Sends `request` and hands the status and body to `handle` while the exchange is open; the whole exchange
    /// must finish within `timeout`.
    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (_ status: Int, _ body: ResponseBody) async throws -> R
    ) async throws -> R
}

/// The pooled AsyncHTTPClient path.
struct AsyncHTTPClientExecutor: HTTPExecutor {
    let http: HTTPClient

    func execute<R>(
        _ request: OutgoingRequest,
        timeout: Duration,
        _ handle: (Int, ResponseBody) async throws -> R
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
        }
        let response = try await http.execute(outgoing, timeout: .nanoseconds(timeout.nanoseconds))
        let iterator = IteratorBox(response.body.makeAsyncIterator())
        return try await handle(Int(response.status.code), ResponseBody { try await iterator.base.next() })
    }
}
