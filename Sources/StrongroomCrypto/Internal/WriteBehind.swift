// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import StrongroomCore
import Synchronization

/// Writes buffers to a file on its own serial queue while the caller encrypts or decrypts the next one, so the
/// cipher and the disk work at the same time (on two cores a one-pass file cipher is otherwise the sum of both).
///
/// At most ``depth`` buffers wait at once, so memory stays bounded; buffers are recycled, and with `wipes`
/// (decrypted plaintext) each is zeroed when it is handed back to the caller for reuse, and the spares when writing
/// ends. The first write error is kept and thrown by the next ``write(_:)`` or by ``finish()``. The owner must call
/// ``finish()`` (or ``waitForPendingWrites()`` on a failure path) before the descriptor is closed.
final class WriteBehind: Sendable {
    /// How many filled buffers may wait for the disk.
    static let depth = 2

    private final class Buffer: @unchecked Sendable {
        // Owned by one thread at a time: the producer until `write(_:)`, then the write queue, then the free list.
        var bytes: [UInt8]
        init(_ bytes: consuming [UInt8]) { self.bytes = bytes }
    }

    private let descriptor: Int32
    private let wipes: Bool
    private let queue = DispatchQueue(label: "strongroom.file-cipher.write-behind")
    private let slots = DispatchSemaphore(value: WriteBehind.depth)
    private let failure = Mutex<CryptoError?>(nil)
    private let recycled = Mutex<[Buffer]>([])

    /// Writes to `descriptor`, which stays open and owned by the caller.
    init(descriptor: Int32, wipes: Bool) {
        self.descriptor = descriptor
        self.wipes = wipes
    }

    /// Queues the contents of `bytes` for writing and leaves `bytes` empty (with a recycled buffer's capacity when
    /// one is free). Blocks while ``depth`` buffers are already waiting.
    ///
    /// - Throws: the first write error so far (``CryptoError/Code/io``); nothing more is written after one.
    func write(_ bytes: inout [UInt8]) throws(CryptoError) {
        if let error = failure.withLock({ $0 }) { throw error }
        guard !bytes.isEmpty else { return }
        let buffer = Buffer([])
        swap(&buffer.bytes, &bytes)
        // The slot first: a write that finished has put its buffer back before it frees its slot, so past the first
        // `depth` writes a spare is always there and no buffer is allocated (or freed) per write.
        slots.wait()
        if let spare = recycled.withLock({ $0.popLast() }) {
            swap(&bytes, &spare.bytes)
            // Wiped here, on the caller's thread, not on the write queue: writing into fresh page-cache pages
            // already keeps that thread the busier one.
            if wipes { Wipe.bytes(&bytes) }
            bytes.removeAll(keepingCapacity: true)
        } else {
            // A fresh buffer as large as the one handed over, so refilling it never reallocates (a reallocation
            // would free plaintext without wiping it).
            bytes.reserveCapacity(buffer.bytes.capacity)
        }
        queue.async { [self] in
            defer { slots.signal() }
            if failure.withLock({ $0 }) == nil {
                do throws(CryptoError) {
                    try buffer.bytes.withBytes { raw throws(CryptoError) in
                        try BlockingFile.write(raw, to: descriptor)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            let kept = recycled.withLock { spares in
                guard spares.count < WriteBehind.depth else { return false }
                spares.append(buffer)
                return true
            }
            if wipes && !kept { Wipe.bytes(&buffer.bytes) }
        }
    }

    /// Waits for every queued write, without throwing: for failure paths, before the file is closed and removed.
    /// With `wipes`, the spare buffers (which keep what they last wrote until reused) are zeroed.
    func waitForPendingWrites() {
        queue.sync {}
        guard wipes else { return }
        recycled.withLock { spares in
            for spare in spares { Wipe.bytes(&spare.bytes) }
        }
    }

    /// Waits for every queued write.
    ///
    /// - Throws: the first write error (``CryptoError/Code/io``).
    func finish() throws(CryptoError) {
        waitForPendingWrites()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
