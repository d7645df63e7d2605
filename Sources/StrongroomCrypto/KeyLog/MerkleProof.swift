// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Verification of RFC 9162's inclusion and consistency proofs (§2.1.3.2 and §2.1.4.2), written so that every
/// malformed proof is refused: an index outside the tree, sizes that shrink, a proof with a hash too few or too many,
/// an empty proof that would otherwise prove anything from size 0 (transparency-dev/merkle#140's bug). Every loop is
/// bounded by the proof's length, itself at most ``maximumLength``, and by the 64 bits of the sizes.
public enum MerkleProof {
    /// The most hashes a proof may hold. An inclusion proof in a tree of fewer than 2⁶³ leaves has at most 63; a
    /// consistency proof at most 64 (one more when the old size is a power of two is prepended by the verifier).
    public static let maximumLength = 64

    /// The largest tree size a proof may name (2⁶³ − 1, so sizes fit an `Int64` column).
    public static let maximumTreeSize = UInt64(Int64.max)

    /// Checks that `leaf` is the leaf at `index` of the tree of `treeSize` leaves whose root is `root`.
    ///
    /// - Throws: ``CryptoError/Code/invalidProof`` when it does not prove that.
    public static func verifyInclusion(
        leaf: MerkleHash,
        index: UInt64,
        treeSize: UInt64,
        proof: [MerkleHash],
        root: MerkleHash
    ) throws(CryptoError) {
        guard treeSize <= maximumTreeSize, index < treeSize else {
            throw CryptoError(.invalidProof, "leaf \(index) is not in a tree of \(treeSize) leaves")
        }
        guard proof.count <= maximumLength else {
            throw CryptoError(.invalidProof, "an inclusion proof has at most \(maximumLength) hashes")
        }
        var (fn, sn) = (index, treeSize - 1)
        var hash = leaf
        for sibling in proof {
            guard sn != 0 else { throw CryptoError(.invalidProof, "the inclusion proof is longer than the path") }
            if fn & 1 == 1 || fn == sn {
                hash = .node(sibling, hash)
                // At most 63 shifts: fn and sn fit 64 bits, and fn ≠ 0 until it stops.
                while fn & 1 == 0 && fn != 0 { (fn, sn) = (fn >> 1, sn >> 1) }
            } else {
                hash = .node(hash, sibling)
            }
            (fn, sn) = (fn >> 1, sn >> 1)
        }
        guard sn == 0 else { throw CryptoError(.invalidProof, "the inclusion proof is shorter than the path") }
        guard hash == root else { throw CryptoError(.invalidProof, "the inclusion proof does not lead to the root") }
    }

    /// Checks that the tree of `oldSize` leaves with root `oldRoot` is a prefix of the tree of `newSize` leaves with
    /// root `newRoot`. Equal sizes need an empty proof and equal roots; from size 0 the old root must be
    /// ``MerkleHash/empty`` and the proof empty.
    ///
    /// - Throws: ``CryptoError/Code/invalidProof`` when it does not prove that (a log that shrank or forked).
    public static func verifyConsistency(
        oldSize: UInt64,
        newSize: UInt64,
        oldRoot: MerkleHash,
        newRoot: MerkleHash,
        proof: [MerkleHash]
    ) throws(CryptoError) {
        guard newSize <= maximumTreeSize, oldSize <= newSize else {
            throw CryptoError(.invalidProof, "a tree of \(newSize) leaves cannot extend one of \(oldSize)")
        }
        guard proof.count <= maximumLength else {
            throw CryptoError(.invalidProof, "a consistency proof has at most \(maximumLength) hashes")
        }
        if oldSize == 0 {
            guard proof.isEmpty, oldRoot == .empty else {
                throw CryptoError(
                    .invalidProof,
                    "from the empty tree the proof is empty and the old root the empty hash"
                )
            }
            return
        }
        if oldSize == newSize {
            guard proof.isEmpty, oldRoot == newRoot else {
                throw CryptoError(.invalidProof, "two trees of one size are consistent only when their roots are equal")
            }
            return
        }
        guard !proof.isEmpty else { throw CryptoError(.invalidProof, "the consistency proof is empty") }
        // An old size that is a power of two is a whole subtree: its root starts the path.
        let path = oldSize & (oldSize - 1) == 0 ? [oldRoot] + proof : proof
        var (fn, sn) = (oldSize - 1, newSize - 1)
        while fn & 1 == 1 { (fn, sn) = (fn >> 1, sn >> 1) }  // at most 63 shifts: fn < 2⁶³ has a zero bit
        var (fr, sr) = (path[0], path[0])
        for hash in path.dropFirst() {
            guard sn != 0 else { throw CryptoError(.invalidProof, "the consistency proof is longer than the path") }
            if fn & 1 == 1 || fn == sn {
                fr = .node(hash, fr)
                sr = .node(hash, sr)
                while fn & 1 == 0 && fn != 0 { (fn, sn) = (fn >> 1, sn >> 1) }
            } else {
                sr = .node(sr, hash)
            }
            (fn, sn) = (fn >> 1, sn >> 1)
        }
        guard sn == 0 else { throw CryptoError(.invalidProof, "the consistency proof is shorter than the path") }
        guard fr == oldRoot, sr == newRoot else {
            throw CryptoError(.invalidProof, "the consistency proof does not lead to both roots")
        }
    }
}
