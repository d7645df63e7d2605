// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// Wipes buffers that held secrets (`sodium_memzero`, which the optimiser cannot remove).
///
/// - Important: Wiping an array clears only its current storage. A copy made earlier (copy-on-write) is not
///   cleared. Keep long-lived secrets in ``SecureBytes`` instead.
public enum Wipe {
    /// Overwrites every byte of `bytes` with zero, keeping its count.
    public static func bytes(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// Overwrites every byte of the array's storage with zero, its spare capacity included, keeping its count.
    ///
    /// For a buffer that is emptied with `removeAll(keepingCapacity: true)` and refilled: the bytes past its count
    /// still hold what an earlier fill left there, which ``bytes(_:)`` does not reach. Wiping the whole storage
    /// once, when the buffer is done with, replaces wiping it before every refill.
    public static func allocation(_ bytes: inout [UInt8]) {
        Wipe.bytes(&bytes)
        let spare = bytes.capacity - bytes.count
        guard spare > 0 else { return }
        // Asking for no more than the spare capacity never reallocates; nothing is marked initialized.
        bytes.append(addingCapacity: spare) { span in
            span.withUnsafeMutableBufferPointer { free, _ in sodium_memzero(free.baseAddress, free.count) }
        }
    }

    /// Overwrites every byte of raw memory with zero.
    public static func memory(_ buffer: UnsafeMutableRawBufferPointer) {
        sodium_memzero(buffer.baseAddress, buffer.count)
    }
}
