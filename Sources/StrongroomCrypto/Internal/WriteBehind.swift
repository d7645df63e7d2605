// Strongroom — SPDX-License-Identifier: Apache-2.0
import CFileSync
import Dispatch
import StrongroomCore
import Synchronization

/// Writes buffers to a file on its own serial queue while the caller encrypts or decrypts the next one, so the
/// cipher and the disk work at the same time (on two cores a one-pass file cipher is otherwise the sum of both).
///
/// At most ``depth`` buffers wait at once, so memory stays bounded; buffers are recycled, and with `wipes`
/// (decrypted plaintext) the spares' whole storage is zeroed when writing ends, and a buffer that is not kept as a
/// spare when it is let go. A recycled buffer is not wiped when it is handed back for reuse: the caller refills it
/// from its start, so what it held is overwritten or wiped at the end (the caller wipes its own buffer's whole
/// storage likewise, ``Wipe/allocation(_:)``); wiping every recycled megabyte cost the cipher's thread 2–4% of its
/// time. The first write error is kept and thrown by the next ``write(_:)`` or by ``finish()``. The owner must call
/// ``finish()`` (or ``waitForPendingWrites()`` on a failure path) before the descriptor is closed.
///
/// With `startsWriteback` (a file that will be fsynced), every ``writebackStride`` bytes written the queue asks the
/// kernel to start writing them to disk without waiting, so the disk works while the cipher does and the closing
/// fsync has only the last stride left: measured on this project's machine, that fsync fell from about 40 ms to
/// 3 ms per 128 MiB, and a download's one pass from ≈ 365 to ≈ 440 MB/s.
final class WriteBehind: Sendable {
    /// How many filled buffers may wait for the disk.
    static let depth = 2

    /// How many written bytes go to the disk together when `startsWriteback` is set.
    static let writebackStride: Int64 = 8 << 20

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
    private let writeback: Writeback?

    /// Where the file's bytes stand against the disk; touched only on `queue`.
    private final class Writeback: @unchecked Sendable {
        /// Bytes written so far.
        var written: Int64 = 0
        /// Bytes whose writeback has been started (always a prefix of the file).
        var started: Int64 = 0
    }

    /// Writes to `descriptor`, which stays open and owned by the caller, from its start; `startsWriteback` when
    /// the caller will fsync the file (pointless work for a temporary file that is removed unsynced).
    init(descriptor: Int32, wipes: Bool, startsWriteback: Bool = false) {
        self.descriptor = descriptor
        self.wipes = wipes
        self.writeback = startsWriteback ? Writeback() : nil
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
                    wrote(buffer.bytes.count)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            let kept = recycled.withLock { spares in
                guard spares.count < WriteBehind.depth else { return false }
                spares.append(buffer)
                return true
            }
            if wipes && !kept { Wipe.allocation(&buffer.bytes) }
        }
    }

    /// Counts `count` bytes written and starts the writeback of the next stride once it is complete (on `queue`).
    /// A failure to start it is ignored: it is only a hint, and the fsync reports what is wrong with the disk.
    private func wrote(_ count: Int) {
        guard let writeback else { return }
        writeback.written += Int64(count)
        let pending = writeback.written - writeback.started
        guard pending >= Self.writebackStride else { return }
        _ = cfilesync_start_writeback(descriptor, writeback.started, pending)
        writeback.started = writeback.written
    }

    /// How many bytes from the file's start the kernel has been asked to write to disk so far (nil without
    /// `startsWriteback`); waits for the queued writes first.
    var writebackStarted: Int64? { queue.sync { writeback?.started } }

    /// Waits for every queued write, without throwing: for failure paths, before the file is closed and removed.
    /// With `wipes`, the spare buffers' whole storage (what they last wrote, and earlier fills past that) is zeroed.
    func waitForPendingWrites() {
        withSpares { if wipes { Wipe.allocation(&$0) } }
    }

    /// Hands `body` each spare buffer, after every queued write (tests use it to see what the spares' storage holds).
    func withSpares(_ body: (inout [UInt8]) -> Void) {
        queue.sync {}
        recycled.withLock { spares in
            for spare in spares { body(&spare.bytes) }
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
