// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import StrongroomCore

/// Reads a file in fixed-size pieces on its own serial queue, one piece ahead of the caller, so the disk (or the
/// page cache's copy) and the cipher work at the same time — the reading twin of ``WriteBehind``.
///
/// Two buffers take turns: while the caller works on one, the queue fills the other. Memory stays at two pieces.
/// With `wipes` both buffers are zeroed once reading ends (plaintext). The owner must call ``finish()`` before
/// the descriptor is closed, on every path. Not `Sendable`: one thread calls ``next(_:)``; only the buffers cross
/// to the queue.
final class ReadAhead {
    private final class Buffer: @unchecked Sendable {
        // Owned by one thread at a time: the read queue while `filled` is unsignalled, then the caller until it
        // hands the buffer back with `refill(_:)`.
        var bytes: [UInt8]
        var count = 0
        var failure: CryptoError?
        let filled = DispatchSemaphore(value: 0)
        init(size: Int) { bytes = [UInt8](repeating: 0, count: size) }
    }

    private let descriptor: Int32
    private let wipes: Bool
    private let queue = DispatchQueue(label: "strongroom.file-cipher.read-ahead")
    private let buffers: [Buffer]
    private var index = 0
    private var ended = false

    /// Reads `descriptor` (which stays open and owned by the caller) in pieces of `pieceSize` bytes; the first two
    /// reads start at once.
    init(descriptor: Int32, pieceSize: Int, wipes: Bool) {
        self.descriptor = descriptor
        self.wipes = wipes
        buffers = [Buffer(size: pieceSize), Buffer(size: pieceSize)]
        for buffer in buffers { refill(buffer) }
    }

    /// Hands the next piece to `body`, or returns nil at the end of the file (and on every later call).
    ///
    /// - Throws: a read error (``CryptoError/Code/io``), or what `body` throws; either ends the reading, and later
    ///   calls return nil.
    func next<R>(_ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R) throws(CryptoError) -> R? {
        guard !ended else { return nil }
        let buffer = buffers[index]
        buffer.filled.wait()
        if let failure = buffer.failure {
            ended = true
            throw failure
        }
        guard buffer.count > 0 else {
            ended = true
            return nil
        }
        let result: R
        do {
            result = try buffer.bytes.withBytes { bytes throws(CryptoError) in
                try body(UnsafeRawBufferPointer(rebasing: bytes[0..<buffer.count]))
            }
        } catch {
            ended = true  // the piece was taken; a later call must not wait for it again
            throw error
        }
        index = 1 - index
        refill(buffer)
        return result
    }

    /// Waits for the read in flight, then (with `wipes`) zeroes both buffers. Safe to call on any path.
    func finish() {
        queue.sync {}
        guard wipes else { return }
        for buffer in buffers { Wipe.bytes(&buffer.bytes) }
    }

    private func refill(_ buffer: Buffer) {
        queue.async { [descriptor] in
            do throws(CryptoError) {
                buffer.count = try buffer.bytes.withMutableBytes { raw throws(CryptoError) in
                    try BlockingFile.read(into: raw, from: descriptor)
                }
            } catch {
                buffer.count = 0
                buffer.failure = error
            }
            buffer.filled.signal()
        }
    }
}
