// Strongroom — SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Convenience functions for secure random values.
public enum SecureRandom {
    /// `count` random bytes in a buffer that wipes itself.
    public static func bytes(count: Int, using source: some RandomSource = .system) -> SecureBytes {
        SecureBytes(count: count) { source.fill($0) }
    }

    /// `count` random bytes that are not secret (nonces, salts, identifiers).
    public static func data(count: Int, using source: some RandomSource = .system) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { source.fill($0) }
        return data
    }

    /// A random version 4 UUID.
    public static func uuid(using source: some RandomSource = .system) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeMutableBytes { source.fill($0) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
