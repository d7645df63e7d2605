// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

extension Client {
    /// The server's newest key log checkpoint, verified: signed by the pinned log key, fresh, and consistent with
    /// the newest one this client kept (which it then replaces).
    ///
    /// - Throws: ``ClientError/Code/logInconsistent``, ``ClientError/Code/checkpointStale``, or a transport error.
    @discardableResult
    public func keyLogCheckpoint() async throws(ClientError) -> LogCheckpoint {
        let answer = try await authenticated(
            .GET,
            E3DBPath.keyLogCheckpoint.render(),
            success: [200],
            as: KeyLogCheckpointResponse.self
        )
        return try await acceptCheckpoint(answer.checkpoint)
    }

    /// This client's own key history in the log, each leaf proven against a verified checkpoint, and checked to
    /// bind only this client's keys: its registration, then each key change signed by the keys it left and the keys
    /// it took (``rotateKeys(to:)``), ending at the keys this client holds.
    ///
    /// It shows what the server answers for this client's ID: a server could leave a leaf out of this answer while
    /// showing it to others, which only a full scan (``monitorKeyLog()``) rules out.
    ///
    /// - Throws: ``ClientError/Code/keyCompromised`` when a leaf binds keys this client did not create to its ID (its
    ///   newest leaf binds other keys, a change lacks the signatures of the keys on both sides, or a key comes back);
    ///   ``ClientError/Code/keyNotLogged`` when its registration is not in the log or a proof fails.
    public func auditKeys() async throws(ClientError) -> KeyHistory {
        let chain = try await provenKeyChain(of: configuration.clientID, proving: true)
        guard let checkpoint = chain.checkpoint, let newest = chain.links.last else {
            throw ClientError(.keyNotLogged, "this client's registration is not in the server's key log")
        }
        let current =
            newest.keys.encryption == configuration.keys.encryptionKey.publicKey
            && newest.keys.signing == configuration.keys.signingKey.publicKey
        guard current else {
            throw ClientError(
                .keyCompromised,
                "the key log binds keys this client did not create to its ID (leaf \(newest.index)): "
                    + "someone registered or changed keys in its name"
            )
        }
        // Every change is signed by the keys on both sides of it, ending at this client's keys: all of them its own.
        let entries = chain.links.map { link in
            KeyHistory.Entry(
                index: link.index,
                kind: link.entry.kind,
                time: link.entry.time,
                isThisClients: true,
                isCurrent: link.index == newest.index
            )
        }
        return KeyHistory(clientID: configuration.clientID, checkpoint: checkpoint, entries: entries)
    }

    /// Scans the whole key log from its first leaf: recomputes the root of a verified checkpoint from the leaves the
    /// server serves, and checks that every key leaf naming this client binds this client's keys.
    ///
    /// This is the check a self-scan cannot make: the server cannot hide a leaf from a monitor without the root
    /// changing. It also finds the rotation leaves that supersede access keys this client has cached, which a server
    /// can leave out of its targeted answers (``KeyLogMonitorReport/supersededKeys``), and every client's newest key
    /// change, so this process refuses keys a client replaced (``ClientError/Code/keyWithheld``). It reads every leaf (at most ``maximumMonitoredLeaves``), so it is for monitors and audits, not for
    /// every request.
    ///
    /// - Throws: ``ClientError/Code/keyCompromised`` for a foreign key bound to this client's ID,
    ///   ``ClientError/Code/logInconsistent`` when the leaves do not hash to the checkpoint's root.
    public func monitorKeyLog() async throws(ClientError) -> KeyLogMonitorReport {
        let checkpoint = try await keyLogCheckpoint()
        guard checkpoint.size <= Self.maximumMonitoredLeaves else {
            throw ClientError(.invalidResponse, "the key log holds more than \(Self.maximumMonitoredLeaves) leaves")
        }
        var tree = MerkleTree()
        var own: [UInt64] = []
        var changed: [String: UInt64] = [:]  // each client's newest key change
        let held = await cachedSuccessorTags()
        var superseded: [UUID: AccessKeyCache.Slot] = [:]
        while tree.size < checkpoint.size {
            let page = try await authenticated(
                .GET,
                E3DBPath.keyLogLeaves.render() + "?start=\(tree.size)&count=1000",
                success: [200],
                as: KeyLogLeavesResponse.self
            )
            guard !page.leaves.isEmpty, page.leaves.count <= 1_000 else {
                throw ClientError(.logInconsistent, "the server stopped serving key log leaves at \(tree.size)")
            }
            for leaf in page.leaves where tree.size < checkpoint.size {
                guard leaf.index == tree.size, let bytes = Data(base64Encoded: leaf.entry), bytes.count <= 128 else {
                    throw ClientError(.logInconsistent, "the server served key log leaf \(leaf.index) out of order")
                }
                tree.append(.leaf(bytes))
                guard let entry = try? KeyLogEntry(decoding: bytes) else { continue }  // a newer kind: not ours
                if let rotation = KeyGenerationLeaf(entry), let slot = held[rotation.successorTag] {
                    superseded[rotation.successorTag] = slot
                }
                if entry.kind == .keysChanged, changed.count < 100_000 {
                    changed[entry.clientID.uuidString.lowercased()] = leaf.index
                }
                guard entry.clientID == configuration.clientID, entry.keys != nil else { continue }
                own.append(leaf.index)
            }
        }
        guard tree.root(size: checkpoint.size) == checkpoint.root else {
            throw ClientError(
                .logInconsistent,
                "the key log's leaves do not hash to its checkpoint's root: the server shows a different log"
            )
        }
        // From now on this client refuses a client's keys from before a key change the log holds.
        try await keyLog.noteNewestKeyLeaves(changed)
        // Every key leaf naming this client must be in its proven chain of signed changes, ending at its keys: a leaf
        // the history answer left out is one the server shows others but not this client.
        let history = try await auditKeys()
        let audited = Set(history.entries.map(\.index))
        if let first = own.first(where: { !audited.contains($0) }) {
            throw ClientError(
                .keyCompromised,
                "the key log binds keys this client did not create to its ID (leaf \(first)): "
                    + "someone registered or changed keys in its name"
            )
        }
        guard history.entries.allSatisfy({ $0.index >= checkpoint.size || own.contains($0.index) }) else {
            throw ClientError(.logInconsistent, "the key history holds a leaf the full log does not")
        }
        // Cached keys the log shows superseded are dropped, so their next use fetches the current generation; the
        // tags are kept, so a server serving one of those keys as current again is caught (keyWithheld).
        await keyLog.recordSuperseded(superseded.keys)
        for slot in superseded.values {
            await accessKeys.remove(writerID: slot.writerID, userID: slot.userID, type: slot.type)
        }
        return KeyLogMonitorReport(checkpoint: checkpoint, ownKeyLeaves: own, supersededKeys: superseded.count)
    }

    /// The most leaves ``monitorKeyLog()`` reads.
    public static let maximumMonitoredLeaves: UInt64 = 10_000_000

    // MARK: Verified lookups

    /// Checks that `info`, the server's answer for `clientID`, carries keys its key log proves (when verification
    /// is on), and that this client's own history is clean (once per client).
    func verifyKeys(of info: ClientInfo, for clientID: String, checkingContact: Bool = true) async throws(ClientError) {
        guard configuration.keyLog.isEnabled else { return }
        try await checkOwnHistory()
        guard let inclusion = info.keyLog else {
            throw ClientError(.keyNotLogged, "the server gave client \(clientID)'s keys without a key log proof")
        }
        let entry = try await proven(inclusion)
        let servedSigningKey = info.signingKey?.ed25519.flatMap { $0.isEmpty ? nil : $0 }
        guard entry.clientID.uuidString.lowercased() == clientID.lowercased(), let keys = entry.keys,
            keys.encryption.base64URLEncoded == info.publicKey.curve25519,
            keys.signing?.base64URLEncoded == servedSigningKey
        else {
            throw ClientError(
                .keyNotLogged,
                "the keys the server gave for client \(clientID) are not the ones its key log binds to it"
            )
        }
        let verified = try await keyLog.noteKeyLeaf(clientID.lowercased(), inclusion.index)
        guard checkingContact, let verified else { return }
        let half = SafetyNumber.Half(clientID: entry.clientID, encryptionKey: keys.encryption, signingKey: keys.signing)
        guard ConstantTime.equals(verified, half.digits) else {
            throw ClientError(
                .contactKeysChanged,
                "the keys of client \(clientID), a contact you verified, have changed: nothing was sent to them; "
                    + "compare safety numbers with its owner again before trusting the new keys"
            )
        }
    }

    /// The entry of a leaf the server proved with its answer: its checkpoint accepted (with the consistency proof the
    /// answer offered), then its inclusion proof checked.
    func proven(_ inclusion: KeyLogInclusion) async throws(ClientError) -> KeyLogEntry {
        var offered: (since: UInt64, proof: [MerkleHash])?
        if let since = inclusion.since { offered = (since, try Self.hashes(inclusion.consistency ?? [])) }
        let checkpoint = try await acceptCheckpoint(inclusion.checkpoint, offered: offered)
        return try Self.proven(
            KeyLogLeaf(index: inclusion.index, entry: inclusion.entry),
            proof: inclusion.proof,
            against: checkpoint
        )
    }

    /// Runs ``auditKeys()`` before the first key operation and again when the log grew (at most every
    /// ``KeyLogVerification/ownHistoryInterval``); a compromise found sticks.
    private func checkOwnHistory() async throws(ClientError) {
        guard try await keyLog.ownHistoryIsDue() else { return }
        do {
            let history = try await auditKeys()
            await keyLog.recordOwnHistory(.success(history.checkpoint.size))
        } catch {
            if error.code == .keyCompromised { await keyLog.recordOwnHistory(.failure(error)) }
            throw error
        }
    }

    /// `note` verified against the pinned key and freshness, then accepted as consistent with the newest kept; a
    /// consistency proof the answer `offered` (from its size to the note's) is used instead of asking for one.
    func acceptCheckpoint(
        _ note: String,
        offered: (since: UInt64, proof: [MerkleHash])? = nil
    ) async throws(ClientError) -> LogCheckpoint {
        if let checkpoint = try await keyLog.acceptedWithoutFetching(note: note, offered: offered, now: Date()) {
            return checkpoint
        }
        let key = try await keyLog.verifierKey { () async throws(ClientError) -> String in
            try await self.authenticated(
                .GET,
                E3DBPath.keyLogCheckpoint.render(),
                success: [200],
                as: KeyLogCheckpointResponse.self
            ).verifierKey
        }
        // The witnesses the server advertises, pinned on first use (then one of them must have cosigned).
        if try await keyLog.needsAdvertisedWitnesses() {
            let answer = try await authenticated(
                .GET,
                E3DBPath.keyLogCheckpoint.render(),
                success: [200],
                as: KeyLogCheckpointResponse.self
            )
            try await keyLog.adopt(advertised: answer.witnesses ?? [])
        }
        let checkpoint = try await keyLog.check(note: note, key: key, now: Date())
        try await keyLog.advance(to: checkpoint, note: note) { (old, new) async throws(ClientError) -> [MerkleHash] in
            // A proof the answer carried is checked like a fetched one (a wrong one fails verification).
            if let offered, offered.since == old, new == checkpoint.size { return offered.proof }
            let answer: KeyLogProofResponse
            do throws(ClientError) {
                answer = try await self.authenticated(
                    .GET,
                    E3DBPath.keyLogConsistency.render() + "?old=\(old)&new=\(new)",
                    success: [200],
                    as: KeyLogProofResponse.self
                )
            } catch {
                // The server refuses sizes its log does not have: a log smaller than one it signed before.
                guard error.code == .badRequest else { throw error }
                throw ClientError(
                    .logInconsistent,
                    "the server cannot prove its key log of \(old) leaves grew into one of \(new): it shrank or forked",
                    underlying: error
                )
            }
            return try Self.hashes(answer.proof)
        }
        return checkpoint
    }

    /// The entry of `leaf`, after its inclusion proof against `checkpoint` verifies.
    static func proven(
        _ leaf: KeyLogLeaf,
        proof: [String],
        against checkpoint: LogCheckpoint
    ) throws(ClientError)
        -> KeyLogEntry
    {
        guard let bytes = Data(base64Encoded: leaf.entry), bytes.count <= 128 else {
            throw ClientError(.keyNotLogged, "a key log leaf from the server is malformed")
        }
        do {
            try MerkleProof.verifyInclusion(
                leaf: .leaf(bytes),
                index: leaf.index,
                treeSize: checkpoint.size,
                proof: try hashes(proof),
                root: checkpoint.root
            )
            return try KeyLogEntryCache.shared.entry(decoding: bytes)
        } catch {
            throw ClientError(
                .keyNotLogged,
                "key log leaf \(leaf.index) is not proven in the checkpoint of \(checkpoint.size) leaves",
                underlying: error
            )
        }
    }

    /// Hashes in standard base64, at most 64.
    static func hashes(_ texts: [String]) throws(ClientError) -> [MerkleHash] {
        guard texts.count <= MerkleProof.maximumLength else {
            throw ClientError(.invalidResponse, "a key log proof has at most \(MerkleProof.maximumLength) hashes")
        }
        var hashes: [MerkleHash] = []
        for text in texts {
            guard text.utf8.count <= 64, let data = Data(base64Encoded: text), let hash = MerkleHash(bytes: data) else {
                throw ClientError(.invalidResponse, "a key log proof holds something that is not a hash")
            }
            hashes.append(hash)
        }
        return hashes
    }
}

/// A client's key history as its key log holds it (``Client/auditKeys()``).
public struct KeyHistory: Sendable, Hashable {
    /// One key leaf.
    public struct Entry: Sendable, Hashable {
        /// The leaf's index in the log.
        public var index: UInt64
        /// Registration or key change.
        public var kind: KeyLogEntry.Kind
        /// When, in microseconds since the Unix epoch.
        public var time: UInt64
        /// Whether it binds this client's own keys: its current ones, or ones it replaced by a signed key change.
        public var isThisClients: Bool
        /// Whether it binds the client's current keys (its newest key leaf).
        public var isCurrent: Bool
    }

    /// The client.
    public var clientID: UUID
    /// The checkpoint every leaf was proven against.
    public var checkpoint: LogCheckpoint
    /// The key leaves, oldest first.
    public var entries: [Entry]
}

/// What a full scan of the key log found (``Client/monitorKeyLog()``).
public struct KeyLogMonitorReport: Sendable, Hashable {
    /// The checkpoint whose leaves were scanned and whose root they hash to.
    public var checkpoint: LogCheckpoint
    /// The leaves binding this client's own keys.
    public var ownKeyLeaves: [UInt64]
    /// How many access keys this client had cached that a rotation leaf in the log supersedes (dropped from the
    /// cache; a server that serves one as current again is refused with ``ClientError/Code/keyWithheld``).
    public var supersededKeys: Int
}
