// Strongroom — SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird
import NIOCore
import StrongroomWire

/// A stored file body served with a re-wrapped prologue (docs/design/Revocation.md, "Files"): the first
/// ``FilePrologue/size`` bytes of the stored body are replaced by the prologue a re-wrap stored, so the file keeps its
/// size and every later byte.
enum PrologueSplice {
    /// `stored` with its first 100 bytes replaced by `prologue` (100 bytes).
    static func body(_ stored: ResponseBody, prologue: [UInt8]) -> ResponseBody {
        precondition(prologue.count == FilePrologue.size)
        return ResponseBody(contentLength: stored.contentLength) { writer in
            try await stored.write(Writer(parent: writer, prologue: ByteBuffer(bytes: prologue)))
        }
    }

    private struct Writer: ResponseBodyWriter {
        var parent: any ResponseBodyWriter
        /// Written once the stored prologue has been skipped; nil after.
        var prologue: ByteBuffer?
        /// Stored bytes still to skip.
        var skip = FilePrologue.size

        init(parent: any ResponseBodyWriter, prologue: ByteBuffer) { (self.parent, self.prologue) = (parent, prologue) }

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            if skip > 0 {
                let dropped = min(skip, buffer.readableBytes)
                buffer.moveReaderIndex(forwardBy: dropped)
                skip -= dropped
                if skip == 0, let prologue {
                    self.prologue = nil
                    try await parent.write(prologue)
                }
            }
            if buffer.readableBytes > 0 { try await parent.write(buffer) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
            try await parent.finish(trailingHeaders)
        }
    }
}
