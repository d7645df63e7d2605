// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Dispatch
import NIOCore
import Synchronization

/// The MD5 of a download, computed on its own serial queue while the caller decrypts the same bytes: on two cores
/// the checksum and the decryption otherwise run one after the other on one thread (MD5 alone is slower than the
/// decryption here). The received buffers are shared, not copied (a `ByteBuffer` is immutable once read), and at
/// most ``depth`` wait, so memory stays bounded; ``update(_:)`` suspends (never blocks its thread) while they do.
final class BackgroundMD5: Sendable {
    /// How many received buffers (at most 64 KiB each from NIO's reads) may wait for the digest.
    static let depth = 32

    /// Touched only on `queue`.
    private final class State: @unchecked Sendable {
        var md5 = Insecure.MD5()
    }

    /// Buffers queued and not yet digested, and the task waiting for room (at most one: the download's own loop).
    private struct Slots {
        var queued = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let queue = DispatchQueue(label: "strongroom.download.md5")
    private let slots = Mutex(Slots())
    private let state = State()

    /// Queues `buffer` for the digest, first waiting (suspended, off any thread) while ``depth`` buffers are queued.
    func update(_ buffer: ByteBuffer) async {
        let full = slots.withLock { $0.queued >= Self.depth }
        if full {
            await withCheckedContinuation { continuation in
                let resumeNow = slots.withLock { slots in
                    guard slots.queued >= Self.depth else { return true }
                    slots.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        slots.withLock { $0.queued += 1 }
        queue.async { [self] in
            buffer.withUnsafeReadableBytes { state.md5.update(bufferPointer: $0) }
            let waiter = slots.withLock { slots in
                slots.queued -= 1
                defer { slots.waiter = nil }
                return slots.waiter
            }
            waiter?.resume()
        }
    }

    /// Waits (suspended) for the queued buffers and returns the digest of everything given to ``update(_:)``.
    func finalize() async -> Insecure.MD5Digest {
        await withCheckedContinuation { continuation in
            queue.async { [state] in continuation.resume(returning: state.md5.finalize()) }
        }
    }
}
