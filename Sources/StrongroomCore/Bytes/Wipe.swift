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

    /// Overwrites every byte of raw memory with zero.
    public static func memory(_ buffer: UnsafeMutableRawBufferPointer) {
        sodium_memzero(buffer.baseAddress, buffer.count)
    }
}
