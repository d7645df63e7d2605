// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import Testing

/// RFC 9162's tree hash and proofs: Certificate Transparency's reference vectors, then every pair of sizes up to
/// 1,024 — each valid proof verifies, and each tampered one (a flipped byte, a hash dropped or added, a wrong size or
/// index, another root) is refused.
@Suite struct MerkleProofTests {
    struct Reference: Decodable {
        struct Inclusion: Decodable {
            let index: UInt64
            let size: UInt64
            let proof: [String]
        }
        struct Consistency: Decodable {
            let old: UInt64
            let new: UInt64
            let proof: [String]
        }
        let entries: [String]
        let roots: [String]
        let inclusion: [Inclusion]
        let consistency: [Consistency]
    }

    static func hash(_ hex: String) throws -> MerkleHash {
        let bytes = try #require(HexBytes.decode(hex))
        return try #require(MerkleHash(bytes: bytes))
    }

    /// The leaves of the exhaustive trees: leaf i is the hash of the 8 bytes of i.
    static let leaves: [MerkleHash] = (0..<1_024).map { (index: UInt64) in
        withUnsafeBytes(of: index.littleEndian) { MerkleHash.leaf(Data($0)) }
    }

    @Test("the reference entries give the reference roots, audit paths and consistency paths")
    func referenceVectors() throws {
        let reference = try Vectors.load(Reference.self, "keylog/rfc6962.json")
        let entries = try reference.entries.map { text in try #require(HexBytes.decode(text)) }
        let tree = MerkleTree(leaves: entries.map { MerkleHash.leaf(Data($0)) })
        #expect(MerkleHash.empty.description == reference.roots[0])
        for (size, root) in reference.roots.enumerated() {
            #expect(tree.root(size: UInt64(size))?.description == root, "size \(size)")
        }
        for case let vector in reference.inclusion {
            let proof = try vector.proof.map(Self.hash)
            #expect(tree.inclusionProof(index: vector.index, size: vector.size) == proof)
            try MerkleProof.verifyInclusion(
                leaf: try #require(tree.leaf(at: vector.index)),
                index: vector.index,
                treeSize: vector.size,
                proof: proof,
                root: try Self.hash(reference.roots[Int(vector.size)])
            )
        }
        for vector in reference.consistency {
            let proof = try vector.proof.map(Self.hash)
            #expect(tree.consistencyProof(oldSize: vector.old, newSize: vector.new) == proof)
            try MerkleProof.verifyConsistency(
                oldSize: vector.old,
                newSize: vector.new,
                oldRoot: try Self.hash(reference.roots[Int(vector.old)]),
                newRoot: try Self.hash(reference.roots[Int(vector.new)]),
                proof: proof
            )
        }
    }

    /// Whether `check` refuses with ``CryptoError/Code/invalidProof``.
    static func refuses(_ check: () throws(CryptoError) -> Void) -> Bool {
        do {
            try check()
            return false
        } catch {
            return error.code == .invalidProof
        }
    }

    /// `proof` with one bit of hash `position` flipped.
    static func flipped(_ proof: [MerkleHash], at position: Int) -> [MerkleHash] {
        var bytes = proof[position].bytes
        bytes[(position * 7) % 32] ^= 0x01
        var copy = proof
        copy[position] = MerkleHash(bytes: bytes)!
        return copy
    }

    @Test("every consistency proof between sizes m ≤ n ≤ 1,024 verifies; every tampered one is refused")
    func everyConsistencyPair() {
        let tree = MerkleTree(leaves: Self.leaves)
        let roots = (0...UInt64(1_024)).map { tree.root(size: $0)! }
        let stranger = MerkleHash.leaf(Data("not a root".utf8))
        var (verified, refused, failures) = (0, 0, [String]())
        for n in UInt64(0)...1_024 {
            for m in UInt64(0)...n {
                let proof = tree.consistencyProof(oldSize: m, newSize: n)!
                let (old, new) = (roots[Int(m)], roots[Int(n)])
                func check(_ p: [MerkleHash], _ m: UInt64, _ n: UInt64, _ a: MerkleHash, _ b: MerkleHash) -> Bool {
                    Self.refuses { () throws(CryptoError) in
                        try MerkleProof.verifyConsistency(oldSize: m, newSize: n, oldRoot: a, newRoot: b, proof: p)
                    }
                }
                if check(proof, m, n, old, new) { failures.append("(\(m), \(n)) refused") }
                verified += 1
                // One tampering per pair, each kind in turn; every kind for the small trees.
                var attempts: [Bool] = []
                let kinds = n <= 64 ? Array(0..<7) : [Int((m &+ n) % 7)]
                for kind in kinds {
                    switch kind {
                    case 0 where !proof.isEmpty:
                        attempts.append(check(Self.flipped(proof, at: Int(m % UInt64(proof.count))), m, n, old, new))
                    case 1 where !proof.isEmpty: attempts.append(check(Array(proof.dropLast()), m, n, old, new))
                    case 2: attempts.append(check(proof + [stranger], m, n, old, new))
                    case 3 where m < n: attempts.append(check(proof, m + 1, n, old, new))
                    case 4 where m > 0 && n < 1_024: attempts.append(check(proof, m, n + 1, old, roots[Int(n + 1)]))
                    // (Anything extends the empty tree: from size 0 the new root is not constrained.)
                    case 5 where m > 0: attempts.append(check(proof, m, n, old, stranger))
                    case 6 where m > 0: attempts.append(check(proof, m, n, stranger, new))
                    default: break
                    }
                }
                if !attempts.allSatisfy({ $0 }) { failures.append("(\(m), \(n)): a tampered proof verified") }
                refused += attempts.count
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(5))")
        #expect(verified == 1_025 * 1_026 / 2 && refused > verified / 2, "\(verified) verified, \(refused) refused")
    }

    @Test("every inclusion proof of leaf i < n ≤ 1,024 verifies; every tampered one is refused")
    func everyInclusion() {
        let tree = MerkleTree(leaves: Self.leaves)
        let roots = (0...UInt64(1_024)).map { tree.root(size: $0)! }
        var failures: [String] = []
        for n in UInt64(1)...1_024 {
            for i in UInt64(0)..<n {
                let proof = tree.inclusionProof(index: i, size: n)!
                let leaf = Self.leaves[Int(i)]
                func check(_ p: [MerkleHash], _ i: UInt64, _ n: UInt64, _ leaf: MerkleHash, _ root: MerkleHash) -> Bool
                {
                    Self.refuses { () throws(CryptoError) in
                        try MerkleProof.verifyInclusion(leaf: leaf, index: i, treeSize: n, proof: p, root: root)
                    }
                }
                if check(proof, i, n, leaf, roots[Int(n)]) { failures.append("leaf \(i) of \(n) refused") }
                let tampered: Bool =
                    switch (i &+ n) % 5 {
                    case 0 where !proof.isEmpty:
                        check(Self.flipped(proof, at: Int(i % UInt64(proof.count))), i, n, leaf, roots[Int(n)])
                    case 1 where !proof.isEmpty: check(Array(proof.dropLast()), i, n, leaf, roots[Int(n)])
                    case 2: check(proof + [leaf], i, n, leaf, roots[Int(n)])
                    case 3 where i + 1 < n: check(proof, i + 1, n, leaf, roots[Int(n)])
                    default: check(proof, i, n, Self.leaves[Int((i + 1) % 1_024)], roots[Int(n)])
                    }
                if !tampered { failures.append("leaf \(i) of \(n): a tampered proof verified") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(5))")
    }

    @Test("edge cases fail closed: index past the end, sizes that shrink, empty proofs, bounds")
    func edges() throws {
        let tree = MerkleTree(leaves: Self.leaves.prefix(8))
        let root8 = try #require(tree.root(size: 8))
        let root4 = try #require(tree.root(size: 4))
        let proof = try #require(tree.inclusionProof(index: 5, size: 8))
        func inclusion(_ i: UInt64, _ n: UInt64, _ p: [MerkleHash]) -> Bool {
            Self.refuses { () throws(CryptoError) in
                try MerkleProof.verifyInclusion(leaf: Self.leaves[5], index: i, treeSize: n, proof: p, root: root8)
            }
        }
        #expect(inclusion(8, 8, proof) && inclusion(5, 0, []) && inclusion(UInt64.max, 8, proof))
        #expect(inclusion(5, UInt64.max, proof), "a size past 2⁶³ − 1")
        #expect(inclusion(5, 8, proof + Array(repeating: root8, count: 62)), "a proof longer than 64 hashes")
        func consistency(_ m: UInt64, _ n: UInt64, _ a: MerkleHash, _ b: MerkleHash, _ p: [MerkleHash]) -> Bool {
            Self.refuses { () throws(CryptoError) in
                try MerkleProof.verifyConsistency(oldSize: m, newSize: n, oldRoot: a, newRoot: b, proof: p)
            }
        }
        let forward = try #require(tree.consistencyProof(oldSize: 4, newSize: 8))
        #expect(!consistency(4, 8, root4, root8, forward))
        #expect(consistency(8, 4, root8, root4, forward), "a log that shrinks")
        #expect(consistency(4, 8, root4, root8, []), "an empty proof between different sizes")
        #expect(!consistency(0, 8, .empty, root8, []), "anything extends the empty tree")
        #expect(consistency(0, 8, root4, root8, []), "but the empty tree's root is the empty hash")
        #expect(consistency(0, 8, .empty, root8, [root4]), "and its proof is empty")
        #expect(!consistency(8, 8, root8, root8, []))
        #expect(consistency(8, 8, root8, root4, []), "one size, two roots: a fork")
        #expect(consistency(8, 8, root8, root8, [root8]))
        #expect(tree.inclusionProof(index: 8, size: 8) == nil && tree.consistencyProof(oldSize: 9, newSize: 8) == nil)
        #expect(tree.root(size: 9) == nil && tree.consistencyProof(oldSize: 0, newSize: 9) == nil)
    }
}

/// Lowercase or uppercase hexadecimal in tests.
enum HexBytes {
    static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
