// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// The key log's leaf per access-key generation against what Python's `hmac` wrote (`Scripts/vectors/
/// keylog_vectors.py`, `generations`): the successor tag and the commitment byte for byte, the entry's layout, and
/// what a different key, writer, user or type changes.
@Suite struct KeyGenerationLeafTests {
    struct Reference: Decodable {
        struct Generations: Decodable {
            struct Rotation: Decodable { let previous, next, successorTag, commitment, encoded: String }
            let writer, user, type: String
            let rotations: [Rotation]
        }
        let generations: Generations
    }

    static func key(_ hex: String) throws -> AccessKey {
        try AccessKey(rawRepresentation: SecureBytes(copying: try KeyLogEntryTests.bytes(hex)))
    }

    @Test("tags, commitments and entries are byte for byte what Python's hmac wrote; the leaves chain")
    func vectors() throws {
        let reference = try Vectors.load(Reference.self, "keylog/entries.json").generations
        let writer = try #require(UUID(uuidString: reference.writer))
        let user = try #require(UUID(uuidString: reference.user))
        #expect(reference.rotations.count == 2)
        var previousCommitment: KeyLogCommitment?
        for rotation in reference.rotations {
            let (old, new) = (try Self.key(rotation.previous), try Self.key(rotation.next))
            let leaf = try KeyGenerationLeaf(rotating: old, to: new, writer: writer, user: user, type: reference.type)
            let tag = withUnsafeBytes(of: leaf.successorTag.uuid) { Array($0) }
            #expect(tag == (try KeyLogEntryTests.bytes(rotation.successorTag)))
            #expect(leaf.commitment.bytes == (try KeyLogEntryTests.bytes(rotation.commitment)))
            let entry = try leaf.entry(time: 1_764_248_400_000_000)
            #expect(entry.encoded == (try KeyLogEntryTests.bytes(rotation.encoded)))
            let decoded = try KeyLogEntry(decoding: try KeyLogEntryTests.bytes(rotation.encoded))
            #expect(decoded.kind == .keyRotated && KeyGenerationLeaf(decoded) == leaf)
            // The previous rotation's new key is this one's old key: whoever holds it finds this leaf by its tag.
            if let previousCommitment {
                #expect(
                    previousCommitment
                        == (try KeyGenerationLeaf.commitment(to: old, writer: writer, user: user, type: reference.type))
                )
            }
            previousCommitment = leaf.commitment
        }
    }

    @Test("another key, writer, user or type gives another tag and commitment; a type past 1,024 bytes is refused")
    func separation() throws {
        let (a, b) = (UUID(), UUID())
        let key = AccessKey()
        let base = try KeyGenerationLeaf(rotating: key, to: key, writer: a, user: a, type: "t")
        for other in [
            try KeyGenerationLeaf(rotating: AccessKey(), to: AccessKey(), writer: a, user: a, type: "t"),
            try KeyGenerationLeaf(rotating: key, to: key, writer: b, user: a, type: "t"),
            try KeyGenerationLeaf(rotating: key, to: key, writer: a, user: b, type: "t"),
            try KeyGenerationLeaf(rotating: key, to: key, writer: a, user: a, type: "u"),
        ] {
            #expect(other.successorTag != base.successorTag && other.commitment != base.commitment)
        }
        // A key's tag and its commitment are different values (two domains), so a leaf never names itself.
        #expect(Array(base.commitment.bytes.prefix(16)) != withUnsafeBytes(of: base.successorTag.uuid) { Array($0) })
        #expect(throws: CryptoError.self) {
            try KeyGenerationLeaf(
                rotating: key,
                to: key,
                writer: a,
                user: a,
                type: String(repeating: "x", count: 1_025)
            )
        }
        #expect(KeyGenerationLeaf(try KeyLogEntry(.accessGranted, commitment: base.commitment, time: 0)) == nil)
    }
}
