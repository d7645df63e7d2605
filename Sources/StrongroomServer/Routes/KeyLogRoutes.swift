// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// `/v2/keylog/…`: the key log's checkpoint, proofs, leaves, a client's key history and the caller's commitments.
///
/// The checkpoint and consistency proofs are open (they show a size and hashes only), so witnesses and monitors need
/// no account; the rest is behind client authentication, like the client lookup whose keys it proves. Every answer
/// is bounded: at most ``maximumLeaves`` leaves, proofs of at most 64 hashes.
struct KeyLogRoutes {
    /// The most leaves one answer carries.
    static let maximumLeaves = 1_000

    let log: ServerKeyLog
    let store: any KeyLogStore
    let limits: ServerLimits

    /// The checkpoint and consistency proofs, open.
    var publicRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.keyLogCheckpoint), use: checkpoint)
        routes.get(RouterPath(.keyLogConsistency), use: consistency)
        return routes
    }

    /// Inclusion proofs, leaves, histories and commitments, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.keyLogInclusion), use: inclusion)
        routes.get(RouterPath(.keyLogLeaves), use: leaves)
        routes.get(RouterPath(.keyLogClient), use: history)
        routes.get(RouterPath(.keyLogCommitments), use: commitments)
        routes.get(RouterPath(.keyLogGenerations), use: generations)
        return routes
    }

    func checkpoint(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try json(
            KeyLogCheckpointResponse(
                checkpoint: try await log.checkpoint().note,
                verifierKey: log.verifierKey.description,
                witnesses: log.advertisedWitnesses
            )
        )
    }

    /// `?old=&new=`, `0 ≤ old ≤ new ≤` the log's size.
    func consistency(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let old = try Self.number("old", request)
        let new = try Self.number("new", request)
        guard old <= new, let proof = try await log.consistencyProof(oldSize: old, newSize: new) else {
            throw ServerError.badRequest("old and new are sizes with old ≤ new ≤ the log's size")
        }
        return try json(KeyLogProofResponse(proof: proof.map(Self.encode)))
    }

    /// `?index=&size=`, `index < size ≤` the log's size.
    func inclusion(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        let index = try Self.number("index", request)
        let size = try Self.number("size", request)
        guard index < size, let proof = try await log.inclusionProof(index: index, size: size) else {
            throw ServerError.badRequest("index and size satisfy index < size ≤ the log's size")
        }
        return try json(KeyLogProofResponse(proof: proof.map(Self.encode)))
    }

    /// `?start=&count=` (count 1 to ``maximumLeaves``, the default): the leaves from `start`, fewer at the end.
    func leaves(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        let start = try Self.number("start", request)
        let count = try request.uri.queryParameters.get("count").map { text in
            guard let value = Int(text), (1...Self.maximumLeaves).contains(value) else {
                throw ServerError.badRequest("count is 1 to \(Self.maximumLeaves)")
            }
            return value
        }
        let stored = try await store.keyLogLeaves(from: start, limit: count ?? Self.maximumLeaves)
        return try json(
            KeyLogLeavesResponse(leaves: stored.map { KeyLogLeaf(index: $0.index, entry: Self.encode($0.entry)) })
        )
    }

    /// A client's key leaves, each with its proof against the newest checkpoint; 404 for a client with none.
    func history(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        let clientID = try context.clientID("id").description
        let hidden = hiddenLeaves(of: clientID)
        let stored = try await store.keyLeaves(clientID: clientID, limit: Self.maximumLeaves)
            .filter { !hidden.contains($0.index) }
        guard !stored.isEmpty else { throw ServerError.notFound("no key leaf for this client") }
        let (note, leaves) = try await proven(stored)
        return try json(KeyLogHistoryResponse(checkpoint: note, leaves: leaves))
    }

    /// `?after=`: the caller's commitments after that index (as writer or as the other party), opened, with proofs.
    func commitments(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let after = try request.uri.queryParameters.get("after").map { _ in try Self.number("after", request) }
        let stored = try await store.commitmentLeaves(party: caller, after: after, limit: Self.maximumLeaves)
        let (note, proofs) = try await log.proving(stored.map(\.index))
        return try json(
            KeyLogCommitmentsResponse(
                checkpoint: note,
                commitments: try zip(stored, proofs).map { leaf, proof in
                    guard let proof, let salt = leaf.salt, let party = leaf.party, let type = leaf.type else {
                        throw ServerError.storage("a commitment leaf is incomplete or past the log's size")
                    }
                    return KeyLogCommitmentLeaf(
                        leaf: KeyLogLeaf(
                            index: leaf.index,
                            entry: Self.encode(leaf.entry),
                            proof: proof.map(Self.encode)
                        ),
                        salt: Self.encode(salt),
                        writerID: leaf.clientID,
                        userID: leaf.userID,
                        partyID: party,
                        type: type
                    )
                }
            )
        )
    }

    /// The leaves logging a type's access-key generations, newest first, each with its proof: for the writer and
    /// the holders of the type's EAKs (404 for anyone else, as for a type that does not exist).
    func generations(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try requireAccessKeyScope(context, limits)
        let limit = KeyGenerationLeavesResponse.maximumLeaves
        guard let stored = try await store.generationLeaves(of: scope, for: caller, limit: limit) else {
            throw ServerError.notFound("no access key of that type for this client")
        }
        let (note, leaves) = try await proven(stored)
        return try json(KeyGenerationLeavesResponse(checkpoint: note, leaves: leaves))
    }

    /// `stored` with their inclusion proofs against one checkpoint, and that checkpoint.
    private func proven(_ stored: [StoredKeyLogLeaf]) async throws -> (note: String, leaves: [KeyLogLeaf]) {
        let (note, proofs) = try await log.proving(stored.map(\.index))
        let leaves = try zip(stored, proofs).map { leaf, proof in
            guard let proof else { throw ServerError.storage("a key log leaf is past the log's size") }
            // A key change carries its two signatures, which the client checks against the leaves around it.
            let change = leaf.signatures.flatMap { bytes in
                bytes.count == 128
                    ? KeyChangeSignatures(old: Base64URL.encode(bytes[..<64]), new: Base64URL.encode(bytes[64...]))
                    : nil
            }
            return KeyLogLeaf(
                index: leaf.index,
                entry: Self.encode(leaf.entry),
                proof: proof.map(Self.encode),
                keyChange: change
            )
        }
        return (note, leaves)
    }

    /// The leaves a malicious server leaves out of a client's history (the malicious-server tests; none otherwise).
    private func hiddenLeaves(of clientID: String) -> Set<UInt64> {
        log.tampering?.hiddenLeaves(of: clientID) ?? []
    }

    /// A query parameter that is a decimal number from 0 to 2⁶³ − 1; 400 when it is missing or not one.
    static func number(_ name: String, _ request: Request) throws -> UInt64 {
        guard let text = request.uri.queryParameters.get(name), !text.isEmpty, text.utf8.count <= 19,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = UInt64(text),
            value <= MerkleProof.maximumTreeSize
        else { throw ServerError.badRequest("\(name) is a number from 0 to \(MerkleProof.maximumTreeSize)") }
        return value
    }

    static func encode(_ hash: MerkleHash) -> String { Data(hash.bytes).base64EncodedString() }
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
