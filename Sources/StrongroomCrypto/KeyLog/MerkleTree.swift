// Strongroom — SPDX-License-Identifier: Apache-2.0

/// An append-only Merkle tree of leaf hashes held in memory, with RFC 9162's tree hash (§2.1.1), inclusion proofs
/// (§2.1.3.1) and consistency proofs (§2.1.4.1) for any size up to the current one.
///
/// Every complete subtree (2ᵏ leaves starting at a multiple of 2ᵏ) is kept once it is complete, so a root or a proof
/// costs O(log² n) hashes at most and appending costs O(1) amortised. It is what the server's key log keeps and
/// what tests build reference trees with; ``MerkleProof`` verifies what it makes.
public struct MerkleTree: Sendable {
    /// `levels[k][i]`: the hash of the complete subtree of 2ᵏ leaves that starts at leaf i·2ᵏ.
    private var levels: [[MerkleHash]] = [[]]

    /// An empty tree.
    public init() {}

    /// A tree of `leaves`, in order.
    public init(leaves: some Sequence<MerkleHash>) {
        for leaf in leaves { append(leaf) }
    }

    /// How many leaves the tree holds.
    public var size: UInt64 { UInt64(levels[0].count) }

    /// The leaf hash at `index`; nil past the end.
    public func leaf(at index: UInt64) -> MerkleHash? {
        index < size ? levels[0][Int(index)] : nil
    }

    /// Appends a leaf hash (``MerkleHash/leaf(_:)`` of the entry).
    public mutating func append(_ leaf: MerkleHash) {
        levels[0].append(leaf)
        var level = 0
        while levels[level].count.isMultiple(of: 2) {
            let row = levels[level]
            let parent = MerkleHash.node(row[row.count - 2], row[row.count - 1])
            if levels.count == level + 1 { levels.append([]) }
            levels[level + 1].append(parent)
            level += 1
        }
    }

    /// The root of the first `size` leaves (``MerkleHash/empty`` for 0); nil past the current size.
    public func root(size: UInt64) -> MerkleHash? {
        size <= self.size ? hash(0, size) : nil
    }

    /// The inclusion proof of leaf `index` in the tree of the first `size` leaves; nil unless index < size ≤ the
    /// current size.
    public func inclusionProof(index: UInt64, size: UInt64) -> [MerkleHash]? {
        guard index < size, size <= self.size else { return nil }
        var proof: [MerkleHash] = []
        proof.reserveCapacity(64)
        path(index, 0, size, into: &proof)
        return proof
    }

    /// The consistency proof from the first `oldSize` leaves to the first `newSize`; nil unless oldSize ≤ newSize ≤
    /// the current size. Empty when oldSize is 0 or equals newSize.
    public func consistencyProof(oldSize: UInt64, newSize: UInt64) -> [MerkleHash]? {
        guard oldSize <= newSize, newSize <= size else { return nil }
        var proof: [MerkleHash] = []
        guard oldSize > 0 else { return proof }
        proof.reserveCapacity(64)
        subproof(oldSize, 0, newSize, whole: true, into: &proof)
        return proof
    }

    /// The largest power of two smaller than `count` (count ≥ 2): where RFC 9162 splits a tree.
    static func split(_ count: UInt64) -> UInt64 {
        UInt64(1) << (63 - (count - 1).leadingZeroBitCount)
    }

    /// MTH(D[start..<end]): a stored complete subtree, or the two halves of the split (depth at most 64).
    private func hash(_ start: UInt64, _ end: UInt64) -> MerkleHash {
        let count = end - start
        if count == 0 { return .empty }
        if count & (count - 1) == 0, start.isMultiple(of: count) {
            return levels[count.trailingZeroBitCount][Int(start / count)]
        }
        let k = Self.split(count)
        return .node(hash(start, start + k), hash(start + k, end))
    }

    /// PATH(m, D[start..<end]) with m relative to start, appended to `proof` (deepest hash first).
    private func path(_ m: UInt64, _ start: UInt64, _ end: UInt64, into proof: inout [MerkleHash]) {
        let count = end - start
        guard count > 1 else { return }
        let k = Self.split(count)
        if m < k {
            path(m, start, start + k, into: &proof)
            proof.append(hash(start + k, end))
        } else {
            path(m - k, start + k, end, into: &proof)
            proof.append(hash(start, start + k))
        }
    }

    /// SUBPROOF(m, D[start..<end], whole) with m relative to start, appended to `proof`.
    private func subproof(_ m: UInt64, _ start: UInt64, _ end: UInt64, whole: Bool, into proof: inout [MerkleHash]) {
        let count = end - start
        if m == count {
            if !whole { proof.append(hash(start, end)) }
            return
        }
        let k = Self.split(count)
        if m <= k {
            subproof(m, start, start + k, whole: whole, into: &proof)
            proof.append(hash(start + k, end))
        } else {
            subproof(m - k, start + k, end, whole: false, into: &proof)
            proof.append(hash(start, start + k))
        }
    }
}
