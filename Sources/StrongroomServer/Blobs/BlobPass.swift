// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StrongroomWire
import Synchronization

/// One read of a stored file body inside the server (a re-wrap, docs/design/Revocation.md "Files"): its first
/// ``FilePrologue/size`` bytes, and optionally the size and MD5 of the body with those bytes replaced.
struct BlobPass: Sendable {
    /// The body's first 100 bytes as stored (fewer when the body is shorter); nil when there is no body.
    var prologue: [UInt8]?
    /// The bytes read (all of them unless the pass stopped after the prologue).
    var size: Int64
    /// The standard-base64 MD5 of the body with its prologue replaced (empty when not computed).
    var checksum: String

    /// Reads the blob `id` up to its prologue only.
    static func readPrologue(
        _ blobs: any BlobStore,
        id: String,
        context: StrongroomRequestContext
    ) async throws -> BlobPass {
        try await run(blobs, id: id, context: context, replacement: nil, limit: .max)
    }

    /// Reads the whole blob `id` (at most `limit` bytes, 413 beyond), hashing it with its first 100 bytes replaced
    /// by `replacement`.
    static func hashReplacingPrologue(
        _ blobs: any BlobStore,
        id: String,
        context: StrongroomRequestContext,
        with replacement: [UInt8],
        limit: Int64
    ) async throws -> BlobPass {
        precondition(replacement.count == FilePrologue.size)
        return try await run(blobs, id: id, context: context, replacement: replacement, limit: limit)
    }

    private static func run(
        _ blobs: any BlobStore,
        id: String,
        context: StrongroomRequestContext,
        replacement: [UInt8]?,
        limit: Int64
    ) async throws -> BlobPass {
        guard let body = try await blobs.read(id: id, context: context) else {
            return BlobPass(prologue: nil, size: 0, checksum: "")
        }
        let sink = Sink(replacement: replacement, limit: limit)
        do {
            try await body.write(SinkWriter(sink: sink))
        } catch is PrologueRead {
            // The prologue was all that was wanted: the read stops there.
        }
        return try sink.result()
    }

    /// Thrown by the writer to end a read once the prologue is in.
    private struct PrologueRead: Error {}

    private final class Sink: Sendable {
        struct State {
            var prologue: [UInt8] = []
            var size: Int64 = 0
            var md5 = Insecure.MD5()
            var tooLarge = false
        }
        let replacement: [UInt8]?
        let limit: Int64
        let state = Mutex(State())

        init(replacement: [UInt8]?, limit: Int64) { (self.replacement, self.limit) = (replacement, limit) }

        func take(_ buffer: ByteBuffer) throws {
            try state.withLock { state in
                let count = Int64(buffer.readableBytes)
                guard count <= limit - state.size else {
                    state.tooLarge = true
                    throw ServerError.tooLarge("the stored file is larger than its record declares")
                }
                buffer.withUnsafeReadableBytes { bytes in
                    let wanted = max(0, FilePrologue.size - state.prologue.count)
                    let head = min(wanted, bytes.count)
                    if head > 0 {
                        state.prologue.append(contentsOf: bytes[0..<head])
                        if let replacement {
                            let start = state.prologue.count - head
                            replacement[start..<(start + head)].withUnsafeBytes { state.md5.update(bufferPointer: $0) }
                        }
                    }
                    if replacement != nil, head < bytes.count {
                        state.md5.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[head...]))
                    }
                }
                state.size += count
                if replacement == nil, state.prologue.count >= FilePrologue.size { throw PrologueRead() }
            }
        }

        func result() throws -> BlobPass {
            state.withLock { state in
                BlobPass(
                    prologue: state.prologue,
                    size: state.size,
                    checksum: replacement == nil ? "" : Data(state.md5.finalize()).base64EncodedString()
                )
            }
        }
    }

    private struct SinkWriter: ResponseBodyWriter {
        let sink: Sink

        mutating func write(_ buffer: ByteBuffer) async throws { try sink.take(buffer) }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
