// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A SHA-256 hash of a Merkle log as RFC 9162 (Certificate Transparency 2.0) defines it: a leaf hash, an interior
/// node's hash or a tree's root.
///
/// Leaves and interior nodes are domain-separated (`0x00` before a leaf's bytes, `0x01` before two children), so no
/// leaf can pass for a node. Hashes are public values, so equality need not be constant-time. The 32 bytes are held
/// inline (four words, in memory order), so a tree of them costs no allocation per node. SHA-256 is libsodium's
/// (`crypto_hash_sha256`).
public struct MerkleHash: Hashable, Sendable, CustomStringConvertible {
    private var words: (UInt64, UInt64, UInt64, UInt64)

    /// The hash of the empty tree: SHA-256 of no bytes.
    public static let empty = MerkleHash(prefix: nil, UnsafeRawBufferPointer(start: nil, count: 0), nil)

    /// A hash from its 32 bytes; nil for another length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        words = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
    }

    /// SHA-256 of `prefix` (when there is one) ‖ `first` ‖ `second`.
    private init(prefix: UInt8?, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer?) {
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        if var prefix { crypto_hash_sha256_update(&state, &prefix, 1) }
        if let bytes = first.baseAddress, first.count > 0 {
            crypto_hash_sha256_update(&state, bytes.assumingMemoryBound(to: UInt8.self), UInt64(first.count))
        }
        if let second, let bytes = second.baseAddress, second.count > 0 {
            crypto_hash_sha256_update(&state, bytes.assumingMemoryBound(to: UInt8.self), UInt64(second.count))
        }
        var digest = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256_final(&state, &digest)
        words = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: digest) }
    }

    /// The 32 bytes.
    public var bytes: [UInt8] { withUnsafeBytes(of: words) { Array($0) } }

    /// The hash of the leaf whose entry is `entry`: SHA-256(0x00 ‖ entry).
    public static func leaf(_ entry: some DataProtocol) -> MerkleHash {
        Array(entry).withUnsafeBytes { MerkleHash(prefix: 0x00, $0, nil) }
    }

    /// The hash of an interior node whose children hash to `left` and `right`: SHA-256(0x01 ‖ left ‖ right).
    public static func node(_ left: MerkleHash, _ right: MerkleHash) -> MerkleHash {
        withUnsafeBytes(of: left.words) { left in
            withUnsafeBytes(of: right.words) { right in MerkleHash(prefix: 0x01, left, right) }
        }
    }

    /// Lowercase hexadecimal.
    public var description: String { withUnsafeBytes(of: words) { $0.hexString } }

    public static func == (lhs: MerkleHash, rhs: MerkleHash) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
