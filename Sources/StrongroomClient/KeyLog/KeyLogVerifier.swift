// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// A client's view of the key log: the pinned verifier key and the newest checkpoint it accepted, loaded from and
/// saved to ``KeyLogVerification/state``. Checkpoints only move forward, each proven consistent with the last.
actor KeyLogVerifier {
    /// How many times a checkpoint is re-checked when another one was accepted while its proof was fetched.
    static let maximumRounds = 8

    let settings: KeyLogVerification
    private var loaded = false
    private var pinned: NoteVerifierKey?
    private var newest: (checkpoint: LogCheckpoint, note: String)?
    /// A compromise this client found in its own key history: it sticks.
    private var compromise: ClientError?
    /// When this client last found its own history clean, and the log's size then.
    private var lastClean: (at: ContinuousClock.Instant, size: UInt64)?
    /// Successor tags of access keys a full scan found superseded in the log (``Client/monitorKeyLog()``): a server
    /// that serves one of those keys as current again is withholding the rotation.
    private var superseded: Set<UUID> = []
    /// Contacts verified by their safety number: client ID → the digest of the keys verified.
    private var verifiedContacts: [String: String] = [:]
    /// The witnesses adopted from the server's advertisement (nil: not asked yet).
    private var adopted: [CosignerKey]?
    /// The last note ``check(note:key:now:)`` verified, parsed, with the cosignature times found on it: the same text
    /// again (the server signs a checkpoint a second, so most answers repeat it) skips the signature checks, never
    /// the freshness or cosignature count.
    private var lastChecked:
        (
            note: String, key: NoteVerifierKey, signed: SignedNote, checkpoint: LogCheckpoint,
            cosigned: [CosignerKey: UInt64?]
        )?
    /// The newest key leaf seen for each other client this client looked up, kept in the state (at most
    /// ``KeyLogState/maximumKeyLeaves``; beyond, the oldest half by leaf is forgotten).
    private var keyLeaves: [String: UInt64] = [:]

    init(settings: KeyLogVerification) {
        self.settings = settings
        pinned = settings.verifierKey
    }

    /// The pinned key: configured, stored, or `firstUse` (fetched) when there is neither, then kept.
    func verifierKey(
        firstUse: @Sendable () async throws(ClientError) -> String
    ) async throws(ClientError)
        -> NoteVerifierKey
    {
        try await load()
        if let pinned { return pinned }
        let text = try await firstUse()
        if let pinned { return pinned }  // another call pinned one meanwhile
        let key: NoteVerifierKey
        do {
            key = try NoteVerifierKey(text)
        } catch {
            throw ClientError(
                .logInconsistent,
                "the server's key log key is not a valid verifier key",
                underlying: error
            )
        }
        pinned = key
        try await save()
        return key
    }

    /// `note` parsed and checked: signed by `key`, a checkpoint of its log, dated within the freshness bound.
    func check(note: String, key: NoteVerifierKey, now: Date) throws(ClientError) -> LogCheckpoint {
        let checkpoint: LogCheckpoint
        let signed: SignedNote
        if let last = lastChecked, last.note == note, last.key == key {
            (signed, checkpoint) = (last.signed, last.checkpoint)
        } else {
            do {
                signed = try SignedNote(parsing: note)
                _ = try signed.verified(by: [key])
                checkpoint = try LogCheckpoint(text: signed.text)
            } catch {
                throw ClientError(
                    .logInconsistent,
                    "a key log checkpoint is not signed by the log key this client pinned (\(key.name))",
                    underlying: error
                )
            }
            lastChecked = (note, key, signed, checkpoint, [:])
        }
        guard checkpoint.origin == key.name else {
            throw ClientError(.logInconsistent, "a key log checkpoint names another log (\(checkpoint.origin))")
        }
        guard let line = checkpoint.extensions.first(where: { $0.hasPrefix("timestamp ") }),
            let seconds = Int64(line.dropFirst("timestamp ".count)), seconds >= 0, seconds <= 1 << 40
        else {
            throw ClientError(.checkpointStale, "a key log checkpoint carries no time, so its freshness is unknown")
        }
        let age = now.timeIntervalSince1970 - Double(seconds)
        let bound = Double(settings.maximumCheckpointAge.components.seconds)
        guard abs(age) <= bound else {
            throw ClientError(
                .checkpointStale,
                age > 0
                    ? "the server's key log checkpoint is \(Int(age)) s old (at most \(Int(bound)) s is accepted)"
                    : "the server's key log checkpoint is dated \(Int(-age)) s in the future"
            )
        }
        try checkCosignatures(on: signed, now: now, bound: bound)
        return checkpoint
    }

    /// Counts the configured witnesses' fresh cosignatures on `note`.
    ///
    /// - Throws: ``ClientError/Code/notWitnessed`` when fewer than ``KeyLogVerification/requiredCosignatures`` cosigned
    ///   it; ``ClientError/Code/logInconsistent`` when a configured witness's cosignature does not verify.
    private func checkCosignatures(on note: SignedNote, now: Date, bound: Double) throws(ClientError) {
        let (witnesses, required) = policy
        guard required > 0 else { return }
        var counted = Set<CosignerKey>()
        for witness in witnesses where !counted.contains(witness) {
            let time: UInt64?
            if let known = lastChecked?.cosigned[witness], lastChecked?.signed == note {
                time = known
            } else {
                do {
                    time = try witness.cosignatureTime(on: note)
                } catch {
                    throw ClientError(
                        .logInconsistent,
                        "witness \(witness.name)'s cosignature on the key log checkpoint does not verify",
                        underlying: error
                    )
                }
                if lastChecked?.signed == note { lastChecked?.cosigned[witness] = time }
            }
            guard let time, abs(now.timeIntervalSince1970 - Double(time)) <= bound else { continue }
            counted.insert(witness)
        }
        guard counted.count >= required else {
            throw ClientError(
                .notWitnessed,
                "the key log checkpoint carries \(counted.count) fresh cosignatures of the "
                    + "\(required) this client requires from its witnesses"
            )
        }
    }

    /// The witnesses counted and how many must cosign: the configured ones, or else one of those adopted from the
    /// server's advertisement.
    private var policy: (witnesses: [CosignerKey], required: Int) {
        if !settings.witnesses.isEmpty || settings.requiredCosignatures > 0 {
            return (settings.witnesses, settings.requiredCosignatures)
        }
        guard settings.adoptsAdvertisedWitnesses, let adopted, !adopted.isEmpty else { return ([], 0) }
        return (adopted, 1)
    }

    /// Whether the advertised witnesses still have to be asked for: adoption is on, nothing is configured, and none
    /// were pinned yet.
    func needsAdvertisedWitnesses() async throws(ClientError) -> Bool {
        try await load()
        return settings.adoptsAdvertisedWitnesses && settings.witnesses.isEmpty && settings.requiredCosignatures == 0
            && adopted == nil
    }

    /// Pins the witnesses the server advertises (`advertised`, cosigner keys), once: kept in the state with the log's
    /// key, so a later server that drops them, or shows a log they did not cosign, is refused.
    func adopt(advertised: [String]) async throws(ClientError) {
        try await load()
        guard adopted == nil else { return }
        guard advertised.count <= KeyLogCheckpointResponse.maximumWitnesses,
            advertised.allSatisfy({ $0.utf8.count <= 512 })
        else {
            throw ClientError(.invalidResponse, "the server advertises more than 16 witnesses, or an oversized key")
        }
        do {
            adopted = try advertised.map { try CosignerKey($0) }
        } catch {
            throw ClientError(
                .invalidResponse,
                "the server advertises a witness key that is not one",
                underlying: error
            )
        }
        try await save()
    }

    /// Accepts `checkpoint` if it is consistent with the newest one kept (proven by `prove(old, new)`), keeping it
    /// when it is newer.
    ///
    /// - Throws: ``ClientError/Code/logInconsistent`` when the log shrank, forked or was rewritten.
    func advance(
        to checkpoint: LogCheckpoint,
        note: String,
        prove: @Sendable (UInt64, UInt64) async throws(ClientError) -> [MerkleHash]
    ) async throws(ClientError) {
        try await load()
        for _ in 0..<Self.maximumRounds {
            guard let current = newest else {
                newest = (checkpoint, note)
                try await save()
                return
            }
            if checkpoint.size == current.checkpoint.size {
                guard checkpoint.root == current.checkpoint.root else {
                    throw ClientError(
                        .logInconsistent,
                        "the key log has two different trees of \(checkpoint.size) leaves: it forked"
                    )
                }
                return
            }
            let (old, new) =
                checkpoint.size < current.checkpoint.size
                ? (checkpoint, current.checkpoint) : (current.checkpoint, checkpoint)
            let proof = try await prove(old.size, new.size)
            // Another call may have moved the newest checkpoint while this proof was fetched: check against that.
            guard newest?.checkpoint == current.checkpoint else { continue }
            try Self.checkConsistency(from: old, to: new, proof: proof)
            if checkpoint.size > current.checkpoint.size {
                newest = (checkpoint, note)
                try await save(durably: false)  // a checkpoint-only move (KeyLogFileState.save(_:durably:))
            }
            return
        }
        throw ClientError(.server, "the key log kept moving while its consistency was checked; try again")
    }

    /// The checkpoint of `note` when it is accepted without a request, in one step: the log key and the witnesses are
    /// pinned already, `note` checks out (``check(note:key:now:)``), and it is either of the size of the newest
    /// checkpoint kept, with its root, or newer with the consistency proof from the kept one `offered` by the answer
    /// (then it is kept, as ``advance(to:note:prove:)`` keeps it). Nil sends the caller down the full path (a first
    /// use, an older checkpoint, or a newer one without a proof from the kept size).
    ///
    /// - Throws: what ``check(note:key:now:)`` throws; ``ClientError/Code/logInconsistent`` for a root other than the
    ///   kept one at the same size (a fork) or a consistency proof that does not verify.
    func acceptedWithoutFetching(
        note: String,
        offered: (since: UInt64, proof: [MerkleHash])?,
        now: Date
    ) async throws(ClientError) -> LogCheckpoint? {
        try await load()
        // `newest` is read after the last suspension: nothing moves it between here and the assignment below.
        guard let pinned, !(try await needsAdvertisedWitnesses()), let current = newest else { return nil }
        let checkpoint = try check(note: note, key: pinned, now: now)
        if checkpoint.size == current.checkpoint.size {
            guard checkpoint.root == current.checkpoint.root else {
                throw ClientError(
                    .logInconsistent,
                    "the key log has two different trees of \(checkpoint.size) leaves: it forked"
                )
            }
            return checkpoint
        }
        guard checkpoint.size > current.checkpoint.size, let offered, offered.since == current.checkpoint.size else {
            return nil
        }
        try Self.checkConsistency(from: current.checkpoint, to: checkpoint, proof: offered.proof)
        newest = (checkpoint, note)
        try await save(durably: false)  // a checkpoint-only move (KeyLogFileState.save(_:durably:))
        return checkpoint
    }

    /// Checks that `new` extends `old` by `proof`.
    ///
    /// - Throws: ``ClientError/Code/logInconsistent`` when it does not.
    private static func checkConsistency(
        from old: LogCheckpoint,
        to new: LogCheckpoint,
        proof: [MerkleHash]
    ) throws(ClientError) {
        do {
            try MerkleProof.verifyConsistency(
                oldSize: old.size,
                newSize: new.size,
                oldRoot: old.root,
                newRoot: new.root,
                proof: proof
            )
        } catch {
            throw ClientError(
                .logInconsistent,
                "the key log of \(new.size) leaves does not extend the one of \(old.size) this client saw: "
                    + "it shrank, forked or was rewritten",
                underlying: error
            )
        }
    }

    /// The newest checkpoint accepted, if any.
    func newestCheckpoint() async throws(ClientError) -> LogCheckpoint? {
        try await load()
        return newest?.checkpoint
    }

    /// Whether the client's own history needs checking: never checked, or the log grew and the interval passed;
    /// a compromise found before is thrown again.
    func ownHistoryIsDue() throws(ClientError) -> Bool {
        if let compromise { throw compromise }
        guard let lastClean else { return true }
        guard let size = newest?.checkpoint.size, size > lastClean.size else { return false }
        return ContinuousClock.now - lastClean.at >= settings.ownHistoryInterval
    }

    /// Records that `clientID`'s keys were proven by its key leaf `index`; refuses a leaf older than one seen
    /// before: a server showing keys a client replaced since, after showing the new ones. Returns the digest of the
    /// keys the user verified for `clientID` (``verifiedKeys(of:)``), so a lookup takes one step here.
    @discardableResult
    func noteKeyLeaf(_ clientID: String, _ index: UInt64) async throws(ClientError) -> String? {
        try await load()
        if let seen = keyLeaves[clientID] {
            guard index >= seen else {
                throw ClientError(
                    .keyWithheld,
                    "the server gave client \(clientID)'s keys from before a key change this client has already seen "
                        + "(leaf \(index), after \(seen)): nothing was encrypted to them"
                )
            }
            if index == seen { return verifiedContacts[clientID] }
        } else if keyLeaves.count >= KeyLogState.maximumKeyLeaves {
            // The clients registered longest ago (lowest leaves) are forgotten first: a new one is the likelier target.
            let kept = keyLeaves.sorted { $0.value > $1.value }.prefix(KeyLogState.maximumKeyLeaves / 2)
            keyLeaves = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        keyLeaves[clientID] = index
        try await save()
        return verifiedContacts[clientID]
    }

    /// Records the newest key leaf of each client a full scan found with a key change (saved once): older leaves of
    /// those clients are refused from now on.
    func noteNewestKeyLeaves(_ leaves: [String: UInt64]) async throws(ClientError) {
        try await load()
        var changed = false
        for (client, index) in leaves where keyLeaves[client].map({ $0 < index }) ?? true {
            guard keyLeaves[client] != nil || keyLeaves.count < KeyLogState.maximumKeyLeaves else { continue }
            keyLeaves[client] = index
            changed = true
        }
        if changed { try await save() }
    }

    /// Notes successor tags the log holds for keys this client had cached.
    func recordSuperseded(_ tags: some Sequence<UUID>) { superseded.formUnion(tags) }

    /// Whether a full scan found a leaf superseding the key with this successor tag.
    func isSuperseded(_ tag: UUID) -> Bool { superseded.contains(tag) }

    /// Records the outcome of a check of the client's own history of `size` leaves.
    func recordOwnHistory(_ outcome: Result<UInt64, ClientError>) {
        switch outcome {
        case .success(let size): lastClean = (ContinuousClock.now, size)
        case .failure(let error): compromise = error
        }
    }

    /// The digest of the keys this client's user verified for `clientID`, or nil for a contact never verified.
    func verifiedKeys(of clientID: String) async throws(ClientError) -> String? {
        try await load()
        return verifiedContacts[clientID]
    }

    /// Remembers that the user verified `clientID`'s keys (their `digest`), and saves the state.
    func markVerified(_ clientID: String, keys digest: String) async throws(ClientError) {
        try await load()
        guard pinned != nil else {
            throw ClientError(.invalidConfiguration, "no key log is pinned yet: nothing can be verified against it")
        }
        guard verifiedContacts[clientID] != nil || verifiedContacts.count < KeyLogState.maximumVerifiedContacts else {
            throw ClientError(
                .invalidConfiguration,
                "this client keeps at most \(KeyLogState.maximumVerifiedContacts) verified contacts"
            )
        }
        verifiedContacts[clientID] = digest
        try await save()
    }

    private func load() async throws(ClientError) {
        guard !loaded else { return }
        let stored: KeyLogState?
        do {
            stored = try await settings.state.load()
        } catch {
            throw ClientError(.invalidConfiguration, "the key log state could not be read", underlying: error)
        }
        loaded = true
        guard let stored else { return }
        let storedKey: NoteVerifierKey
        do {
            storedKey = try NoteVerifierKey(stored.verifierKey)
        } catch {
            throw ClientError(.invalidConfiguration, "the stored key log key is not valid", underlying: error)
        }
        if let pinned, pinned != storedKey {
            throw ClientError(
                .logInconsistent,
                "the stored key log state belongs to another log key (\(storedKey.name)) than the configured one"
            )
        }
        pinned = storedKey
        verifiedContacts = stored.verifiedContacts
        keyLeaves.merge(stored.keyLeaves) { max($0, $1) }
        if let witnesses = stored.witnesses {
            do {
                adopted = try witnesses.map { try CosignerKey($0) }
            } catch {
                throw ClientError(.invalidConfiguration, "a stored witness key is not valid", underlying: error)
            }
        }
        if let note = stored.checkpoint {
            do {
                let signed = try SignedNote(parsing: note)
                _ = try signed.verified(by: [storedKey])
                let checkpoint = try LogCheckpoint(text: signed.text)
                newest = (checkpoint, note)
            } catch {
                throw ClientError(
                    .invalidConfiguration,
                    "the stored key log checkpoint is not valid",
                    underlying: error
                )
            }
        }
    }

    private func save(durably: Bool = true) async throws(ClientError) {
        guard let pinned else { return }
        do {
            try await settings.state.save(
                KeyLogState(
                    verifierKey: pinned.description,
                    checkpoint: newest?.note,
                    verifiedContacts: verifiedContacts,
                    witnesses: adopted?.map(\.description),
                    keyLeaves: keyLeaves
                ),
                durably: durably
            )
        } catch {
            throw ClientError(.invalidConfiguration, "the key log state could not be saved", underlying: error)
        }
    }
}
