// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import Testing

/// Key log entries in their fixed layout and the commitments they carry, against bytes an independent Python
/// implementation wrote (`Scripts/vectors/keylog_vectors.py`), and an RFC 9162 tree of 37 leaves from it; every
/// malformed entry refused.
@Suite struct KeyLogEntryTests {
    struct Reference: Decodable {
        struct Commitment: Decodable {
            let kind: UInt8
            let ids: [String]
            let type: String
            let value: String
        }
        struct Entry: Decodable {
            let name: String
            let encoded: String
            let leaf: String
        }
        struct Tree: Decodable {
            let leaves: [String]
            let roots: [String]
            let inclusion: [MerkleProofTests.Reference.Inclusion]
            let consistency: [MerkleProofTests.Reference.Consistency]
        }
        let keys: [String: String]
        let ids: [String: String]
        let salt: String
        let commitments: [Commitment]
        let entries: [Entry]
        let tree: Tree
    }

    static func reference() throws -> Reference { try Vectors.load(Reference.self, "keylog/entries.json") }

    static func bytes(_ hex: String) throws -> [UInt8] { try #require(HexBytes.decode(hex)) }

    @Test("entries and commitments are byte for byte what the Python implementation wrote")
    func entries() throws {
        let reference = try Self.reference()
        let ids = try reference.ids.mapValues { try #require(UUID(uuidString: $0)) }
        let (alice, bob, carol) = (try #require(ids["alice"]), try #require(ids["bob"]), try #require(ids["carol"]))
        let salt = try Self.bytes(reference.salt)
        let encryption = try EncryptionPublicKey(
            rawRepresentation: try Self.bytes(try #require(reference.keys["encryption"]))
        )
        let signing = try SigningPublicKey(rawRepresentation: try Self.bytes(try #require(reference.keys["signing"])))
        let granted = try KeyLogCommitment.access(
            .accessGranted,
            writer: alice,
            user: alice,
            reader: bob,
            type: "notes",
            salt: salt
        )
        let revoked = try KeyLogCommitment.access(
            .accessRevoked,
            writer: alice,
            user: alice,
            reader: bob,
            type: "notes",
            salt: salt
        )
        let authorized = try KeyLogCommitment.authorizer(
            .authorizerGranted,
            writer: alice,
            authorizer: carol,
            type: "sr1.team",
            salt: salt
        )
        #expect(
            [granted, revoked, authorized].map(\.bytes) == (try reference.commitments.map { try Self.bytes($0.value) })
        )
        let made = [
            try KeyLogEntry(
                keysOf: alice,
                .init(encryption: encryption, signing: signing, previous: nil),
                registration: true,
                time: 1_764_244_800_000_000
            ),
            try KeyLogEntry(
                keysOf: alice,
                .init(encryption: encryption, signing: signing, previous: 0),
                registration: false,
                time: 1_764_244_900_000_000
            ),
            try KeyLogEntry(.accessGranted, by: alice, commitment: granted, time: 1_764_245_000_000_000),
            try KeyLogEntry(.accessRevoked, by: alice, commitment: revoked, time: 1_764_245_100_000_000),
            try KeyLogEntry(.authorizerGranted, by: alice, commitment: authorized, time: 1_764_245_200_000_000),
            try KeyLogEntry(
                keysOf: bob,
                .init(encryption: encryption, signing: nil, previous: nil),
                registration: true,
                time: 1_764_245_300_000_000
            ),
        ]
        #expect(made.count == reference.entries.count)
        for (entry, vector) in zip(made, reference.entries) {
            #expect(entry.encoded == (try Self.bytes(vector.encoded)), "\(vector.name)")
            #expect(entry.leafHash.description == vector.leaf, "\(vector.name)")
            #expect(try KeyLogEntry(decoding: try Self.bytes(vector.encoded)) == entry, "\(vector.name)")
        }
    }

    @Test("a commitment entry names nobody: the writer is only inside the commitment, and the entry round-trips")
    func unnamedCommitment() throws {
        let writer = try #require(UUID(uuidString: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"))
        let commitment = try KeyLogCommitment.access(
            .accessGranted,
            writer: writer,
            user: writer,
            reader: UUID(),
            type: "notes",
            salt: [UInt8](repeating: 7, count: 32)
        )
        let entry = try KeyLogEntry(.accessGranted, commitment: commitment, time: 1_764_244_800_000_000)
        #expect(entry.clientID == KeyLogEntry.unnamed)
        #expect(entry.encoded[10..<26].allSatisfy { $0 == 0 })
        #expect(try KeyLogEntry(decoding: entry.encoded) == entry)
        let named = try KeyLogEntry(.accessGranted, by: writer, commitment: commitment, time: entry.time)
        #expect(named.leafHash != entry.leafHash, "an older leaf naming its writer stays readable, and differs")
        #expect(try KeyLogEntry(decoding: named.encoded).clientID == writer)
    }

    @Test("the Python tree's roots, inclusion and consistency paths are MerkleTree's, and verify")
    func pythonTree() throws {
        let tree = try Self.reference().tree
        let leaves = try tree.leaves.map { try #require(MerkleHash(bytes: try Self.bytes($0))) }
        let built = MerkleTree(leaves: leaves)
        let roots = try tree.roots.map { try #require(MerkleHash(bytes: try Self.bytes($0))) }
        #expect((0...built.size).map { built.root(size: $0) } == roots)
        for vector in tree.inclusion {
            let proof = try vector.proof.map { try #require(MerkleHash(bytes: try Self.bytes($0))) }
            #expect(built.inclusionProof(index: vector.index, size: vector.size) == proof)
            try MerkleProof.verifyInclusion(
                leaf: leaves[Int(vector.index)],
                index: vector.index,
                treeSize: vector.size,
                proof: proof,
                root: roots[Int(vector.size)]
            )
        }
        for vector in tree.consistency {
            let proof = try vector.proof.map { try #require(MerkleHash(bytes: try Self.bytes($0))) }
            #expect(built.consistencyProof(oldSize: vector.old, newSize: vector.new) == proof)
            try MerkleProof.verifyConsistency(
                oldSize: vector.old,
                newSize: vector.new,
                oldRoot: roots[Int(vector.old)],
                newRoot: roots[Int(vector.new)],
                proof: proof
            )
        }
    }

    @Test("malformed entries are refused: version, kind, length, chain, time, keys")
    func malformed() throws {
        let reference = try Self.reference()
        let registration = try Self.bytes(reference.entries[0].encoded)
        let change = try Self.bytes(reference.entries[1].encoded)
        let grant = try Self.bytes(reference.entries[2].encoded)
        func code(_ bytes: [UInt8]) -> CryptoError.Code? {
            do {
                _ = try KeyLogEntry(decoding: bytes)
                return nil
            } catch {
                return error.code
            }
        }
        var version = registration
        version[0] = 2
        #expect(code(version) == .unsupportedVersion)
        for kind: UInt8 in [0, 7, 255] {
            var unknown = registration
            unknown[1] = kind
            #expect(code(unknown) == .invalidFormat, "kind \(kind)")
        }
        #expect(code([]) == .invalidFormat && code([1]) == .invalidFormat)
        #expect(code(Array(registration.dropLast())) == .invalidFormat && code(registration + [0]) == .invalidFormat)
        #expect(code(Array(grant.dropLast())) == .invalidFormat && code(grant + [0]) == .invalidFormat)
        var swapped = registration
        swapped[1] = 3  // a keys entry read as a commitment: wrong length
        #expect(code(swapped) == .invalidFormat)
        var chained = registration
        chained[90..<98] = [0, 0, 0, 0, 0, 0, 0, 0]  // a registration with a previous leaf
        #expect(code(chained) == .invalidFormat)
        var unchained = change
        unchained[90..<98] = ArraySlice(repeating: 0xFF, count: 8)  // a key change without one
        #expect(code(unchained) == .invalidFormat)
        var late = grant
        late[2] = 0x80  // a time past 2⁶³ − 1
        #expect(code(late) == .invalidFormat)
        var zeroKey = registration
        zeroKey[26..<58] = ArraySlice(repeating: 0, count: 32)  // the all-zero X25519 key
        #expect(code(zeroKey) == .invalidFormat)
        let salt = try Self.bytes(reference.salt)
        #expect(throws: CryptoError.self) {
            try KeyLogCommitment.access(
                .registered,
                writer: UUID(),
                user: UUID(),
                reader: UUID(),
                type: "t",
                salt: salt
            )
        }
        #expect(throws: CryptoError.self) {
            try KeyLogCommitment.access(
                .accessGranted,
                writer: UUID(),
                user: UUID(),
                reader: UUID(),
                type: "t",
                salt: salt.dropLast()
            )
        }
        #expect(throws: CryptoError.self) {
            try KeyLogCommitment.authorizer(
                .authorizerGranted,
                writer: UUID(),
                authorizer: UUID(),
                type: String(repeating: "t", count: 1_025),
                salt: salt
            )
        }
    }
}
