// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
package import Logging
public import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// The key log as this instance serves it: the Merkle tree of every leaf in `keylog`, caught up from the database
/// before each answer (another instance may have appended), and checkpoints signed with the log's Ed25519 key.
///
/// The log key is derived from the token key (HKDF-SHA256, label `keylog-ed25519`), so every instance of a deployment
/// signs with the same key without another secret to distribute; the origin names that key
/// (`strongroom.keylog/<16 hex digits of SHA-256 of its public key>`), so it is the same on every instance and
/// changes only with the key. Rotating the token key therefore rotates the log key: clients that pinned the old
/// one refuse the new log until told to trust it.
///
/// A checkpoint carries one extension line, `timestamp <Unix seconds>`, so clients can refuse a stale one. A new one
/// is signed when the log grew, and otherwise once a second (every thirty seconds with witnesses, each new checkpoint
/// being a round of cosigning); concurrent answers share one signing.
package actor ServerKeyLog {
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
    private var signed: (size: UInt64, root: MerkleHash, second: Int64, note: String)?
    /// A checkpoint being signed and cosigned, which concurrent answers wait for instead of signing again.
    private var inFlight: (size: UInt64, root: MerkleHash, task: Task<String, Never>)?
    /// The witnesses asked to cosign each new checkpoint, and the size each holds.
    private let witnesses: [KeyLogWitnessEndpoint]
    /// The witnesses' cosigner keys, as the checkpoint answer advertises them (nil without witnesses).
    nonisolated var advertisedWitnesses: [String]? {
        witnesses.isEmpty ? nil : witnesses.prefix(KeyLogCheckpointResponse.maximumWitnesses).map(\.key.description)
    }
    private var witnessSizes: [String: UInt64] = [:]
    private let logger: Logger
    /// A malicious server's answers, set by the malicious-server tests alone (nil: the honest log).
    let tampering: (any KeyLogTampering)?

    /// A log over `store`, signing with the key derived from `tokenKey`.
    package init(
        tokenKey: SecureBytes,
        store: any KeyLogStore,
        clock: ServerClock,
        witnesses: [KeyLogWitnessEndpoint] = [],
        logger: Logger = Logger(label: "strongroom-keylog"),
        tampering: (any KeyLogTampering)? = nil
    ) throws {
        self.witnesses = witnesses
        self.logger = logger
        self.tampering = tampering
        signer = try Self.signer(tokenKey: tokenKey)
        origin = signer.verifierKey.name
        verifierKey = signer.verifierKey
        self.store = store
        self.clock = clock
    }

    /// The log's signer for the deployment whose token key is `tokenKey`.
    static func signer(tokenKey: SecureBytes) throws -> NoteSigner {
        let key = try SigningPrivateKey(seed: try HKDFSHA256.deriveKey(from: tokenKey, label: "keylog-ed25519"))
        let digest = SHA256.hash(data: key.publicKey.rawRepresentation)
        return try NoteSigner(name: "strongroom.keylog/" + Data(digest.prefix(8)).hexString, key: key)
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
    package func checkpoint() async throws -> (note: String, size: UInt64) {
        try await catchUp()
        let view = served()
        return (try await signedNote(view, size: view.size), view.size)
    }

    /// The inclusion proof of leaf `index` in the tree of `size` leaves; nil when `index < size ≤` the log's size
    /// does not hold.
    func inclusionProof(index: UInt64, size: UInt64) async throws -> [MerkleHash]? {
        if size > tree.size { try await catchUp() }
        return served().inclusionProof(index: index, size: size)
    }

    /// The consistency proof from `oldSize` to `newSize`; nil unless `oldSize ≤ newSize ≤` the log's size.
    func consistencyProof(oldSize: UInt64, newSize: UInt64) async throws -> [MerkleHash]? {
        if newSize > tree.size { try await catchUp() }
        return served().consistencyProof(oldSize: oldSize, newSize: newSize)
    }

    /// The newest checkpoint with the inclusion proof of each of `indexes` against it (nil for an index past it).
    func proving(_ indexes: [UInt64]) async throws -> (note: String, proofs: [[MerkleHash]?]) {
        let answer = try await proving(indexes, since: nil)
        return (answer.note, answer.proofs)
    }

    /// As ``proving(_:)``, with the consistency proof from `since` to the checkpoint (nil when `since` is past it),
    /// so a client that holds a checkpoint of that size needs no second request.
    func proving(
        _ indexes: [UInt64],
        since: UInt64?
    ) async throws
        -> (note: String, size: UInt64, proofs: [[MerkleHash]?], consistency: [MerkleHash]?)
    {
        try await catchUp()
        let view = served()
        let size = view.size
        let note = try await signedNote(view, size: size)
        return (
            note,
            size,
            indexes.map { view.inclusionProof(index: $0, size: size) },
            since.flatMap { view.consistencyProof(oldSize: $0, newSize: size) }
        )
    }

    /// The tree answers are made from: the log's, or in a test of a malicious server, a forged one.
    private func served() -> MerkleTree {
        tampering?.servedTree(tree) ?? tree
    }

    /// How long a checkpoint of an unchanged log is served before a fresh one is signed: a second alone, thirty with
    /// witnesses (each new checkpoint is a round of cosigning).
    private var refreshSeconds: Int64 { witnesses.isEmpty ? 1 : 30 }

    /// The signed (and, with witnesses, cosigned) checkpoint of the first `size` leaves of `view`: a new one when the
    /// log changed or the last one is ``refreshSeconds`` old.
    private func signedNote(_ view: MerkleTree, size: UInt64) async throws -> String {
        let second = tampering?.checkpointSecond(clock.unixSeconds) ?? clock.unixSeconds
        guard let root = view.root(size: size) else { throw ServerError.storage("the key log has no such size") }
        if let signed, signed.size == size, signed.root == root, (0..<refreshSeconds).contains(second - signed.second) {
            return signed.note
        }
        if let inFlight, inFlight.size == size, inFlight.root == root { return await inFlight.task.value }
        let checkpoint = LogCheckpoint(origin: origin, size: size, root: root, extensions: ["timestamp \(second)"])
        let note = try signer.sign(checkpoint.text)
        guard !witnesses.isEmpty else {
            signed = (size, root, second, note.encoded)
            return note.encoded
        }
        let (witnesses, known, logger) = (self.witnesses, witnessSizes, self.logger)
        let task = Task {
            let cosigned = await WitnessPusher.cosign(
                note,
                size: size,
                view: view,
                witnesses: witnesses,
                known: known,
                logger: logger
            )
            self.finishCosigning(size: size, root: root, second: second, note: cosigned.note, sizes: cosigned.sizes)
            return cosigned.note.encoded
        }
        inFlight = (size, root, task)
        return await task.value
    }

    private func finishCosigning(
        size: UInt64,
        root: MerkleHash,
        second: Int64,
        note: SignedNote,
        sizes: [String: UInt64]
    ) {
        witnessSizes.merge(sizes) { _, new in new }
        if signed.map({ $0.size <= size }) ?? true { signed = (size, root, second, note.encoded) }
        if inFlight?.size == size, inFlight?.root == root { inFlight = nil }
    }
}

/// The key log's verifier key (`name+keyid+base64`) of the deployment whose token key is `tokenKey`: what clients pin
/// (`strongroom-server keylog key`).
public func keyLogVerifierKey(tokenKey: SecureBytes) throws -> String {
    try ServerKeyLog.signer(tokenKey: tokenKey).verifierKey.description
}

extension ServerKeyLog {
    /// `leaf` with its inclusion proof against the newest checkpoint, and the consistency proof from a checkpoint of
    /// `since` leaves when the caller holds one.
    func inclusion(of leaf: StoredKeyLogLeaf, since: UInt64?) async throws -> KeyLogInclusion {
        let answer = try await proving([leaf.index], since: since)
        guard let proof = answer.proofs.first ?? nil else {
            throw ServerError.storage("a key log leaf is past the log's size")
        }
        return KeyLogInclusion(
            index: leaf.index,
            entry: KeyLogRoutes.encode(leaf.entry),
            checkpoint: answer.note,
            proof: proof.map(KeyLogRoutes.encode),
            since: answer.consistency == nil ? nil : since,
            consistency: answer.consistency?.map(KeyLogRoutes.encode)
        )
    }
}

extension ServerKeyLog {
    /// What a client lookup (`GET /v1/storage/clients/{id}`) answers about `client`: its keys — as a tampering test
    /// server serves them — with its newest key leaf's proof against the newest checkpoint (and the consistency
    /// proof from `since`; no proof for a client not in the log). `now` is the server's time in microseconds.
    func servedInfo(
        of client: StoredClient,
        in store: any KeyLogStore,
        since: UInt64?,
        now: UInt64
    ) async throws -> ClientInfo {
        var info = ClientInfo(
            clientID: client.clientID,
            publicKey: client.publicKey,
            signingKey: client.signingKey,
            validated: true,
            keyLog: nil
        )
        try await tampering?.lookUp(&info, log: store, now: now)
        if var leaf = try await store.newestKeyLeaf(clientID: client.clientID) {
            if let tampering { leaf = tampering.servedKeyLeaf(of: client.clientID, newest: leaf) }
            info.keyLog = try await inclusion(of: leaf, since: since)
        }
        return info
    }
}
