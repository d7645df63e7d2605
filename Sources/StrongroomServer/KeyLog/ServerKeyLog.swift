// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto

/// The key log as this instance serves it: the Merkle tree of every leaf in `keylog`, caught up from the database
/// before each answer (another instance may have appended), and checkpoints signed with the log's Ed25519 key.
///
/// The log key is derived from the token key (HKDF-SHA256, label `keylog-ed25519`), so every instance of a deployment
/// signs with the same key without another secret to distribute; the origin names that key
/// (`strongroom.keylog/<16 hex digits of SHA-256 of its public key>`), so it is the same on every instance and
/// changes only with the key. Rotating the token key therefore rotates the log key: clients that pinned the old
/// one refuse the new log until told to trust it.
///
/// A checkpoint carries one extension line, `timestamp <Unix seconds>`, so clients can refuse a stale one; it is
/// signed at most once per second and size.
actor ServerKeyLog {
    /// Leaves read from the database per query while catching up.
    static let pageSize = 10_000

    /// The log's name, in every checkpoint.
    nonisolated let origin: String
    /// The key its checkpoints verify under.
    nonisolated let verifierKey: NoteVerifierKey
    private let signer: NoteSigner
    private let store: any KeyLogStore
    private let clock: ServerClock
    private var tree = MerkleTree()
    private var signed: (size: UInt64, second: Int64, note: String)?

    /// A log over `store`, signing with the key derived from `tokenKey`.
    init(tokenKey: SecureBytes, store: any KeyLogStore, clock: ServerClock) throws {
        let key = try SigningPrivateKey(seed: try HKDFSHA256.deriveKey(from: tokenKey, label: "keylog-ed25519"))
        let digest = SHA256.hash(data: key.publicKey.rawRepresentation)
        origin = "strongroom.keylog/" + Data(digest.prefix(8)).hexString
        signer = try NoteSigner(name: origin, key: key)
        verifierKey = signer.verifierKey
        self.store = store
        self.clock = clock
    }

    /// Reads the leaves appended since the last catch-up; returns the log's size.
    @discardableResult
    func catchUp() async throws -> UInt64 {
        while true {
            let leaves = try await store.keyLogLeaves(from: tree.size, limit: Self.pageSize)
            for leaf in leaves {
                // Another catch-up may have appended these while this one waited; a gap is never skipped.
                guard leaf.index >= tree.size else { continue }
                guard leaf.index == tree.size else { return tree.size }
                tree.append(.leaf(leaf.entry))
            }
            if leaves.count < Self.pageSize { return tree.size }
        }
    }

    /// The newest checkpoint, signed, and its size.
    func checkpoint() async throws -> (note: String, size: UInt64) {
        let size = try await catchUp()
        return (try signedNote(size: size), size)
    }

    /// The inclusion proof of leaf `index` in the tree of `size` leaves; nil when `index < size ≤` the log's size
    /// does not hold.
    func inclusionProof(index: UInt64, size: UInt64) async throws -> [MerkleHash]? {
        if size > tree.size { try await catchUp() }
        return tree.inclusionProof(index: index, size: size)
    }

    /// The consistency proof from `oldSize` to `newSize`; nil unless `oldSize ≤ newSize ≤` the log's size.
    func consistencyProof(oldSize: UInt64, newSize: UInt64) async throws -> [MerkleHash]? {
        if newSize > tree.size { try await catchUp() }
        return tree.consistencyProof(oldSize: oldSize, newSize: newSize)
    }

    /// The newest checkpoint with the inclusion proof of each of `indexes` against it (nil for an index past it).
    func proving(_ indexes: [UInt64]) async throws -> (note: String, proofs: [[MerkleHash]?]) {
        let size = try await catchUp()
        return (try signedNote(size: size), indexes.map { tree.inclusionProof(index: $0, size: size) })
    }

    /// The signed checkpoint of the first `size` leaves, at most once per second and size.
    private func signedNote(size: UInt64) throws -> String {
        let second = clock.unixSeconds
        if let signed, signed.size == size, signed.second == second { return signed.note }
        guard let root = tree.root(size: size) else { throw ServerError.storage("the key log has no such size") }
        let checkpoint = LogCheckpoint(origin: origin, size: size, root: root, extensions: ["timestamp \(second)"])
        let note = try signer.sign(checkpoint.text).encoded
        signed = (size, second, note)
        return note
    }
}
