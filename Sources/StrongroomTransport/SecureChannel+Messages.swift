// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import HTTPTypes
public import NIOCore
import NIOHTTP1
import StrongroomCore

extension SecureChannel {
    /// What follows a request's head.
    public struct Body: Sendable {
        let storage: OutgoingRequest.Body

        /// No body.
        public static let empty = Body(storage: .none)

        /// Bytes held in memory (sent with `Content-Length`; a retry sends them again).
        public static func bytes(_ buffer: ByteBuffer) -> Body { Body(storage: .bytes(buffer)) }

        /// Bytes held in memory (sent with `Content-Length`; a retry sends them again).
        public static func bytes(_ bytes: some Sequence<UInt8>) -> Body { .bytes(ByteBuffer(bytes: bytes)) }

        /// A file streamed from disk in 64 KiB chunks, read no faster than the connection takes it. It is sent once:
        /// a request with a file body is not retried.
        ///
        /// - Throws: ``TransportError/Code/invalidConfiguration`` when the file cannot be read.
        public static func file(
            at url: URL,
            progress: (@Sendable (Int64) -> Void)? = nil
        ) throws(TransportError)
            -> Body
        {
            let path = url.path(percentEncoded: false)
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                guard attributes[.type] as? FileAttributeType == .typeRegular,
                    let bytes = (attributes[.size] as? NSNumber)?.int64Value
                else { throw TransportError(.invalidConfiguration, "\(path) is not a regular file") }
                size = bytes
            } catch let error as TransportError {
                throw error
            } catch {
                throw TransportError(.invalidConfiguration, "\(path) cannot be read", underlying: error)
            }
            return Body(storage: .file(path: path, length: size, progress: progress))
        }

        /// Chunks from `chunks`, iterated once, each written when the connection has taken the last (sent with
        /// `Content-Length` when `length` is given, chunked otherwise). It is sent once: a request with a stream
        /// body is not retried.
        public static func stream<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil) -> Body
        where Chunks.Element == ByteBuffer {
            Body(
                storage: .stream(length: length) {
                    let iterator = IteratorBox(chunks.makeAsyncIterator())
                    return { try await iterator.base.next() }
                }
            )
        }
    }

    /// An answer with its whole body.
    public struct Response: Sendable {
        /// The status and header fields.
        public var head: HTTPResponse
        /// The body.
        public var body: ByteBuffer

        /// The status code.
        public var status: HTTPResponse.Status { head.status }
    }
}

extension OutgoingRequest {
    /// A channel's request from an HTTP Types request: scheme, authority and path (with its query) become the URL.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` without a scheme (`http` or `https`) or an authority.
    init(_ request: HTTPRequest, body: Body) throws(TransportError) {
        guard let scheme = request.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let authority = request.authority, !authority.isEmpty
        else {
            throw TransportError(
                .invalidConfiguration,
                "a request needs an http or https scheme and an authority (host and port)"
            )
        }
        var path = request.path ?? "/"
        if path.isEmpty { path = "/" }
        guard path.hasPrefix("/") else {
            throw TransportError(.invalidConfiguration, "a request's path must start with /")
        }
        self.init(method: HTTPVerb(rawValue: request.method.rawValue), url: "\(scheme)://\(authority)\(path)")
        for field in request.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        self.body = body
    }
}
