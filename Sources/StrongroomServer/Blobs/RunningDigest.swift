// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
package import NIOCore
import Synchronization

/// MD5 and size of a stream as it passes, with a size limit.
package final class RunningDigest: Sendable {
    private struct State {
        var md5 = Insecure.MD5()
        var size: Int64 = 0
        var isOverLimit = false
    }

    private let state = Mutex(State())
    private let limit: Int64

    package init(limit: Int64) { self.limit = limit }

    package func update(_ buffer: ByteBuffer) throws -> ByteBuffer {
        try state.withLock { state in
            state.size += Int64(buffer.readableBytes)
            guard state.size <= limit else {
                state.isOverLimit = true
                throw Self.overLimit
            }
            buffer.withUnsafeReadableBytes { state.md5.update(bufferPointer: $0) }
        }
        return buffer
    }

    /// The error for a stream past the limit.
    static let overLimit = ServerError.tooLarge("the upload is larger than the declared size")

    /// Whether the stream went past the limit (a file writer may wrap the error ``update(_:)`` threw).
    package var isOverLimit: Bool { state.withLock { $0.isOverLimit } }

    package func finish() -> (size: Int64, checksum: String) {
        state.withLock { state in (state.size, Data(state.md5.finalize()).base64EncodedString()) }
    }
}
