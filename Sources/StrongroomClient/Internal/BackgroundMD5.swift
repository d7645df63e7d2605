// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Dispatch
import NIOCore

/// The MD5 of a download, computed on its own serial queue while the caller decrypts the same bytes: on two cores
/// the checksum and the decryption otherwise run one after the other on one thread (MD5 alone is slower than the
/// decryption here). The received buffers are shared, not copied (a `ByteBuffer` is immutable once read), and at
/// most ``depth`` wait, so memory stays bounded; ``update(_:)`` blocks while they do.
final class BackgroundMD5: Sendable {
    /// How many received buffers (at most 64 KiB each from NIO's reads) may wait for the digest.
    static let depth = 32

    /// Touched only on `queue`.
    private final class State: @unchecked Sendable {
        var md5 = Insecure.MD5()
    }

    private let queue = DispatchQueue(label: "strongroom.download.md5")
    private let slots = DispatchSemaphore(value: BackgroundMD5.depth)
    private let state = State()

    /// Queues `buffer` for the digest.
    func update(_ buffer: ByteBuffer) {
        slots.wait()
        queue.async { [state, slots] in
            buffer.withUnsafeReadableBytes { state.md5.update(bufferPointer: $0) }
            slots.signal()
        }
    }

    /// Waits for the queued buffers and returns the digest of everything given to ``update(_:)``.
    func finalize() -> Insecure.MD5Digest {
        queue.sync { state.md5.finalize() }
    }
}
