// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// Comparisons whose running time does not depend on the contents compared.
///
/// Use these for MACs, tokens, API secrets and keys. The lengths are compared first and are not treated as
/// secret.
public enum ConstantTime {
    /// Whether two buffers hold the same bytes, in time independent of where they differ (`sodium_memcmp`).
    public static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0 else { return true }
        return sodium_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
    }

    /// Whether two byte sequences are equal, compared in constant time.
    public static func equals(_ lhs: some Sequence<UInt8>, _ rhs: some Sequence<UInt8>) -> Bool {
        var left = Array(lhs)
        var right = Array(rhs)
        defer {
            Wipe.bytes(&left)
            Wipe.bytes(&right)
        }
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in equals(l, r) } }
    }

    /// Whether two strings have the same UTF-8 bytes, compared in constant time.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
