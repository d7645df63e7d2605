// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import StrongroomCrypto
package import StrongroomServer
package import StrongroomWire
import Synchronization

/// A malicious server's key log, for tests: a ``KeyLogTampering`` decorator a test hands the server
/// (`ServerConfiguration.keyLogTampering`), then switches each misbehaviour on and off while the server runs, and
/// checks that verifying clients notice.
///
/// - Key substitution: every Nth client lookup answers with keys the server made, keeping the honest proof.
/// - An extra key bound to a client: the next lookup of that client appends a real key-change leaf binding keys the
///   server made (so the log proves them) and answers with them; optionally the client's history hides that leaf.
/// - A fake leaf inserted at a position in every tree the log serves: at the current size, a fork that agrees with
///   the past; below what clients saw, the log truncated and regrown.
/// - Backdated checkpoints: a stale checkpoint replayed.
package final class KeyLogMalice: KeyLogTampering {
    struct State {
        var substituteEvery: Int?
        var lookups = 0
        var fakeLeafAt: UInt64?
        var checkpointAge: Int64 = 0
        var pendingBindings: [String: Bool] = [:]
        var bindings: [String: (index: UInt64, keys: KeyLogEntry.Keys, hidden: Bool)] = [:]
        var replayed: Set<String> = []
        var replayedLeaves: [String: StoredKeyLogLeaf] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Every `n`th lookup (nil: none) answers with substitute keys.
    package func substituteKeys(everyNthLookup n: Int?) { state.withLock { $0.substituteEvery = n } }

    /// Serves trees with a fake leaf inserted at `position` (nil: the honest tree again).
    package func insertFakeLeaf(at position: UInt64?) { state.withLock { $0.fakeLeafAt = position } }

    /// Dates every checkpoint `seconds` in the past.
    package func backdateCheckpoints(by seconds: Int64) { state.withLock { $0.checkpointAge = seconds } }

    /// The next lookup of `clientID` binds server-made keys to it in the log.
    package func bindExtraKey(to clientID: String, hiddenFromHistory: Bool) {
        state.withLock { $0.pendingBindings[clientID] = hiddenFromHistory }
    }

    /// Serves `clientID`'s keys from before its last key change, with that leaf's proof (nil: stop).
    package func replayPreviousKeys(of clientID: String?) {
        state.withLock { state in
            state.replayed = clientID.map { [$0] } ?? []
            state.replayedLeaves = [:]
        }
    }

    // MARK: The decorated answers

    package func servedTree(_ honest: MerkleTree) -> MerkleTree {
        guard let position = forkPosition, position <= honest.size else { return honest }
        var leaves = (0..<honest.size).compactMap { honest.leaf(at: $0) }
        leaves.insert(Self.fakeLeaf, at: Int(position))
        return MerkleTree(leaves: leaves)
    }

    package func checkpointSecond(_ honest: Int64) -> Int64 { honest - backdating }

    package func lookUp(_ info: inout ClientInfo, log: any KeyLogStore, now: UInt64) async throws {
        if let hidden = takePendingBinding(for: info.clientID),
            let registration = try await log.keyLeaves(clientID: info.clientID, limit: 1).first,
            let id = UUID(uuidString: info.clientID)
        {
            let keys = Self.madeUpKeys(previous: registration.index)
            let entry = try KeyLogEntry(keysOf: id, keys, registration: false, time: now)
            if let index = try await log.appendKeyLog([PendingKeyLogLeaf(entry: entry)]) {
                recordBinding(info.clientID, index: index, keys: keys, hidden: hidden)
            }
        }
        if replays(info.clientID),
            let previous = try await log.keyLeaves(clientID: info.clientID, limit: 1_000)
                .dropLast().last, let entry = try? KeyLogEntry(decoding: previous.entry), let keys = entry.keys
        {
            state.withLock { $0.replayedLeaves[info.clientID] = previous }
            info.publicKey = PublicKeyObject(curve25519: keys.encryption.base64URLEncoded)
            info.signingKey = keys.signing.map { SigningKeyObject(ed25519: $0.base64URLEncoded) }
            return
        }
        var keys = boundKeys(of: info.clientID)
        if substitutesThisLookup() { keys = Self.madeUpKeys(previous: nil) }
        if let keys {
            info.publicKey = PublicKeyObject(curve25519: keys.encryption.base64URLEncoded)
            info.signingKey = keys.signing.map { SigningKeyObject(ed25519: $0.base64URLEncoded) }
        }
    }

    package func hiddenLeaves(of clientID: String) -> Set<UInt64> { hiddenIndexes(of: clientID) }

    package func servedKeyLeaf(of clientID: String, newest: StoredKeyLogLeaf) -> StoredKeyLogLeaf {
        state.withLock { $0.replayedLeaves[clientID] } ?? newest
    }

    // MARK: State

    /// Whether this lookup substitutes keys (counting it).
    private func substitutesThisLookup() -> Bool {
        state.withLock { state in
            state.lookups += 1
            guard let every = state.substituteEvery, every > 0 else { return false }
            return state.lookups % every == 0
        }
    }

    /// Whether a binding to `clientID` waits, and whether it hides; clears it.
    private func replays(_ clientID: String) -> Bool { state.withLock { $0.replayed.contains(clientID) } }

    private func takePendingBinding(for clientID: String) -> Bool? {
        state.withLock { $0.pendingBindings.removeValue(forKey: clientID) }
    }

    private func recordBinding(_ clientID: String, index: UInt64, keys: KeyLogEntry.Keys, hidden: Bool) {
        state.withLock { $0.bindings[clientID] = (index, keys, hidden) }
    }

    /// The keys bound to `clientID` by the server, if any.
    private func boundKeys(of clientID: String) -> KeyLogEntry.Keys? { state.withLock { $0.bindings[clientID]?.keys } }

    /// The leaf indexes the client's history hides.
    private func hiddenIndexes(of clientID: String) -> Set<UInt64> {
        state.withLock { state in
            guard let binding = state.bindings[clientID], binding.hidden else { return [] }
            return [binding.index]
        }
    }

    private var forkPosition: UInt64? { state.withLock { $0.fakeLeafAt } }
    private var backdating: Int64 { state.withLock { $0.checkpointAge } }

    /// Keys the server made.
    private static func madeUpKeys(previous: UInt64?) -> KeyLogEntry.Keys {
        KeyLogEntry.Keys(
            encryption: EncryptionPrivateKey().publicKey,
            signing: SigningPrivateKey().publicKey,
            previous: previous
        )
    }

    /// The leaf a fork or a rewrite inserts.
    private static let fakeLeaf = MerkleHash.leaf(Data("strongroom malicious-server test leaf".utf8))
}
