// Strongroom — SPDX-License-Identifier: Apache-2.0
#if DEBUG
import Foundation
import StrongroomCrypto
import Synchronization

/// A malicious server's key log, for tests only (compiled into debug builds alone; a release build has no such
/// type): a test switches each misbehaviour on and off while the server runs, and checks that verifying clients
/// notice.
///
/// - Key substitution: every Nth client lookup answers with keys the server made, keeping the honest proof.
/// - An extra key bound to a client: the next lookup of that client appends a real key-change leaf binding keys the
///   server made (so the log proves them) and answers with them; optionally the client's history hides that leaf.
/// - A fake leaf inserted at a position in every tree the log serves: at the current size, a fork that agrees with
///   the past; below what clients saw, the log truncated and regrown.
/// - Backdated checkpoints: a stale checkpoint replayed.
package final class KeyLogMalice: Sendable {
    struct State {
        var substituteEvery: Int?
        var lookups = 0
        var fakeLeafAt: UInt64?
        var checkpointAge: Int64 = 0
        var pendingBindings: [String: Bool] = [:]
        var bindings: [String: (index: UInt64, keys: KeyLogEntry.Keys, hidden: Bool)] = [:]
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

    // MARK: What the server asks

    /// Whether this lookup substitutes keys (counting it).
    func substitutesThisLookup() -> Bool {
        state.withLock { state in
            state.lookups += 1
            guard let every = state.substituteEvery, every > 0 else { return false }
            return state.lookups % every == 0
        }
    }

    /// Whether a binding to `clientID` waits, and whether it hides; clears it.
    func takePendingBinding(for clientID: String) -> Bool? {
        state.withLock { $0.pendingBindings.removeValue(forKey: clientID) }
    }

    func recordBinding(_ clientID: String, index: UInt64, keys: KeyLogEntry.Keys, hidden: Bool) {
        state.withLock { $0.bindings[clientID] = (index, keys, hidden) }
    }

    /// The keys bound to `clientID` by the server, if any.
    func boundKeys(of clientID: String) -> KeyLogEntry.Keys? { state.withLock { $0.bindings[clientID]?.keys } }

    /// The leaf indexes the client's history hides.
    func hiddenIndexes(of clientID: String) -> Set<UInt64> {
        state.withLock { state in
            guard let binding = state.bindings[clientID], binding.hidden else { return [] }
            return [binding.index]
        }
    }

    var fakeLeafPosition: UInt64? { state.withLock { $0.fakeLeafAt } }
    var checkpointAge: Int64 { state.withLock { $0.checkpointAge } }

    /// Keys the server made.
    static func madeUpKeys(previous: UInt64?) -> KeyLogEntry.Keys {
        KeyLogEntry.Keys(
            encryption: EncryptionPrivateKey().publicKey,
            signing: SigningPrivateKey().publicKey,
            previous: previous
        )
    }

    /// The leaf a fork or a rewrite inserts.
    static let fakeLeaf = MerkleHash.leaf(Data("strongroom malicious-server test leaf".utf8))
}
#endif
