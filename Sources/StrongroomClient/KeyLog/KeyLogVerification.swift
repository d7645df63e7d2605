// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

/// How a client checks the public keys the server gives it against the server's key log (on by default).
///
/// With verification on, every public key the client encrypts to or verifies a signature with (sharing, sharing on
/// a writer's behalf, ``Client/clientInfo(of:)``, a shared record's signer) must come with an inclusion proof
/// against a checkpoint that is signed by the log's key, fresh (``maximumCheckpointAge``) and consistent with the
/// newest checkpoint this client kept (``state``); otherwise the operation fails with
/// ``ClientError/Code/keyNotLogged``, ``ClientError/Code/logInconsistent`` or ``ClientError/Code/checkpointStale``
/// and nothing is encrypted to the key. The client also checks its own key history before its first key operation
/// and again when the log has grown (at most every ``ownHistoryInterval``), and refuses key operations
/// (``ClientError/Code/keyCompromised``) if the log binds a key it did not create to its ID.
///
/// The log's key is the one ``verifierKey`` pins; without one, the first checkpoint the client sees pins it (trust on
/// first use) and ``state`` keeps it. See the DocC article "Verifying a key log" for what this does and does not
/// detect.
public struct KeyLogVerification: Sendable {
    /// Whether keys are checked (false only through ``trustingTheServer()``).
    public private(set) var isEnabled: Bool
    /// The log's verifier key (`name+keyid+base64`, as `strongroom-server keylog key` prints it); nil pins the first
    /// one seen.
    public var verifierKey: NoteVerifierKey?
    /// How old a checkpoint may be (by its `timestamp` line) before it is refused as stale; also how far in the future
    /// a server's clock may be. Ten minutes by default.
    public var maximumCheckpointAge: Duration
    /// How often the client checks its own key history again once the log has grown (a minute by default): a key
    /// bound to its ID is noticed within this interval of the client's next key operation.
    public var ownHistoryInterval: Duration
    /// How long a cached access key of this client's own seals writes before the key log is asked again whether a
    /// newer generation supersedes it (a minute by default; zero asks before every write). A rotation by another
    /// device that the server hides from this one is found within this interval (docs/design/Revocation.md).
    public var generationCheckInterval: Duration = .seconds(60)
    /// Witnesses whose cosignatures (C2SP `tlog-cosignature` v1) the client counts; none by default.
    public var witnesses: [CosignerKey]
    /// How many of ``witnesses`` must have cosigned a checkpoint (fresh within ``maximumCheckpointAge``) for the
    /// client to accept it: the defence against a server showing clients different logs (a split view). Zero by
    /// default.
    public var requiredCosignatures: Int
    /// Whether, with no ``witnesses`` configured (and ``requiredCosignatures`` zero), the client adopts the witnesses
    /// the server advertises with its checkpoint: pinned on first use in ``state`` like the log's key, then one fresh
    /// cosignature of theirs required on every checkpoint (``ClientError/Code/notWitnessed`` otherwise). On by
    /// default; a server that advertised none at first use is held to none.
    public var adoptsAdvertisedWitnesses = true
    /// Where the pinned key and the newest checkpoint are kept between runs: in `keylog.json` beside the profile for a
    /// configuration loaded from a profile file (``Client/Configuration/init(loadProfile:from:)-(String,URL)``), in
    /// the keychain beside a keychain profile (``Client/Configuration/init(loadProfile:from:)-(String,Keychain)``,
    /// ``KeyLogKeychainState``); in memory otherwise (a new process pins on first use again: name a store for a
    /// configuration built in code).
    public var state: any KeyLogStateStore

    /// Verification on, with a pinned key or trust on first use.
    public init(
        verifierKey: NoteVerifierKey? = nil,
        maximumCheckpointAge: Duration = .seconds(600),
        ownHistoryInterval: Duration = .seconds(60),
        witnesses: [CosignerKey] = [],
        requiredCosignatures: Int = 0,
        state: any KeyLogStateStore = KeyLogMemoryState()
    ) {
        self.witnesses = witnesses
        self.requiredCosignatures = requiredCosignatures
        isEnabled = true
        self.verifierKey = verifierKey
        self.maximumCheckpointAge = maximumCheckpointAge
        self.ownHistoryInterval = ownHistoryInterval
        self.state = state
    }

    /// **Unsafe**: no key log checks. The client takes the server's word for every public key, as the official E3DB
    /// SDKs do, so a compromised server can substitute a key and read what is shared from then on. Only for servers
    /// without a key log (Tozny's).
    public static func trustingTheServer() -> KeyLogVerification {
        var verification = KeyLogVerification()
        verification.isEnabled = false
        return verification
    }
}

/// What a client keeps of the key log between runs: the log's verifier key, the newest checkpoint it accepted, and
/// the contacts its user verified. All are public (no secret): a checkpoint only names a size and a hash, a verified
/// contact a client ID and its half of the safety number.
public struct KeyLogState: Codable, Sendable, Hashable {
    /// The most contacts a state holds.
    public static let maximumVerifiedContacts = 10_000
    /// The most clients whose newest key leaf a state remembers.
    public static let maximumKeyLeaves = 100_000

    /// The pinned verifier key, `name+keyid+base64`.
    public var verifierKey: String
    /// The newest checkpoint accepted, as the signed note the server sent.
    public var checkpoint: String?
    /// The witnesses the server advertised when this client first asked (``KeyLogVerification/adoptsAdvertisedWitnesses``),
    /// as cosigner keys; nil when it never asked, empty when the server advertised none.
    public var witnesses: [String]?
    /// Verified contacts: client ID (lowercase) → its half of the safety number verified (`SafetyNumber.Half`)
    /// (``Client/verifyContact(_:safetyNumber:)``).
    public var verifiedContacts: [String: String]
    /// The newest key leaf this client was shown for each client it looked up (client ID, or `ID/hybrid` for its
    /// post-quantum key → leaf index): a server that later shows keys from before a key change is refused
    /// (``ClientError/Code/keyWithheld``), in this process and the next.
    public var keyLeaves: [String: UInt64]

    enum CodingKeys: String, CodingKey {
        case verifierKey = "verifier_key"
        case checkpoint
        case verifiedContacts = "verified_contacts"
        case witnesses
        case keyLeaves = "key_leaves"
    }

    /// Creates a state.
    public init(
        verifierKey: String,
        checkpoint: String?,
        verifiedContacts: [String: String] = [:],
        witnesses: [String]? = nil,
        keyLeaves: [String: UInt64] = [:]
    ) {
        self.verifierKey = verifierKey
        self.checkpoint = checkpoint
        self.verifiedContacts = verifiedContacts
        self.witnesses = witnesses
        self.keyLeaves = keyLeaves
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        verifierKey = try container.decode(String.self, forKey: .verifierKey)
        checkpoint = try container.decodeIfPresent(String.self, forKey: .checkpoint)
        verifiedContacts = try container.decodeIfPresent([String: String].self, forKey: .verifiedContacts) ?? [:]
        witnesses = try container.decodeIfPresent([String].self, forKey: .witnesses)
        keyLeaves = try container.decodeIfPresent([String: UInt64].self, forKey: .keyLeaves) ?? [:]
        guard keyLeaves.count <= Self.maximumKeyLeaves, keyLeaves.keys.allSatisfy({ $0.utf8.count <= 64 }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .keyLeaves,
                in: container,
                debugDescription: "at most \(Self.maximumKeyLeaves) key leaves, each under a client ID"
            )
        }
        guard (witnesses ?? []).count <= KeyLogCheckpointResponse.maximumWitnesses,
            (witnesses ?? []).allSatisfy({ $0.utf8.count <= 512 })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .witnesses,
                in: container,
                debugDescription: "at most \(KeyLogCheckpointResponse.maximumWitnesses) witness keys"
            )
        }
        guard verifiedContacts.count <= Self.maximumVerifiedContacts,
            verifiedContacts.allSatisfy({ $0.key.utf8.count <= 36 && $0.value.utf8.count == 30 })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .verifiedContacts,
                in: container,
                debugDescription: "at most \(Self.maximumVerifiedContacts) contacts, each an ID and 30 digits"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verifierKey, forKey: .verifierKey)
        try container.encodeIfPresent(checkpoint, forKey: .checkpoint)
        if !verifiedContacts.isEmpty { try container.encode(verifiedContacts, forKey: .verifiedContacts) }
        try container.encodeIfPresent(witnesses, forKey: .witnesses)
        if !keyLeaves.isEmpty { try container.encode(keyLeaves, forKey: .keyLeaves) }
    }
}

/// Where ``KeyLogState`` is kept.
public protocol KeyLogStateStore: Sendable {
    /// The stored state, or nil when none was saved.
    func load() async throws -> KeyLogState?
    /// Replaces the stored state.
    func save(_ state: KeyLogState) async throws
    /// Replaces the stored state; `durably` false when only the newest checkpoint moved, which a store may write
    /// without syncing it to disk (the default implementation saves durably).
    func save(_ state: KeyLogState, durably: Bool) async throws
}

extension KeyLogStateStore {
    public func save(_ state: KeyLogState, durably: Bool) async throws { try await save(state) }
}

/// Keeps the key log state in memory, for the life of the process.
public actor KeyLogMemoryState: KeyLogStateStore {
    private var state: KeyLogState?

    /// An empty state, or `state`.
    public init(_ state: KeyLogState? = nil) { self.state = state }

    public func load() -> KeyLogState? { state }
    public func save(_ state: KeyLogState) { self.state = state }
}

/// Keeps the key log state in a JSON file (written atomically, mode 0600), such as next to a client profile, with a
/// journal of newer checkpoints beside it (`<file>.checkpoints`).
///
/// A move of the newest checkpoint alone — each answer after a write to the log brings one — is appended to the
/// journal, unsynced, rather than rewriting the state: a killed process loses nothing, a crash of the machine may lose
/// the newest lines (the next process then holds an older checkpoint, so a fork between the two would be missed).
/// Every other change (pins, witnesses, verified contacts, key-leaf floors) rewrites the state durably and empties the
/// journal; so does a journal past 1 MiB. Reading takes the newest checkpoint of the state and the journal, skipping
/// a torn last line.
public struct KeyLogFileState: KeyLogStateStore {
    /// The file.
    public let url: URL

    /// The largest state file read (100,000 key leaves and 1,000 contacts fit well within it).
    static let maximumStateBytes = 16 << 20
    /// A journal past this size is folded into the state at the next move.
    static let maximumJournalBytes = 1 << 20

    /// A state kept in `url`.
    public init(url: URL) { self.url = url }

    /// The journal of checkpoints beside the state.
    var journalPath: String { url.path + ".checkpoints" }

    public func load() async throws -> KeyLogState? {
        let (path, journalPath) = (url.path, self.journalPath)
        let (data, journal) = try await BlockingExecutor.shared.run { _ -> (Data?, Data?) in
            func read(_ path: String, upTo limit: Int) throws -> Data? {
                guard FileManager.default.fileExists(atPath: path) else { return nil }
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                return try handle.read(upToCount: limit + 1) ?? Data()
            }
            return (
                try read(path, upTo: Self.maximumStateBytes),
                try read(journalPath, upTo: 2 * Self.maximumJournalBytes)
            )
        }
        guard let data else { return nil }
        guard data.count <= Self.maximumStateBytes else {
            throw CocoaError(.fileReadTooLarge, userInfo: [NSFilePathErrorKey: path])
        }
        var state = try JSONDecoder().decode(KeyLogState.self, from: data)
        if let journal, journal.count <= 2 * Self.maximumJournalBytes,
            let newer = Self.newestCheckpoint(in: journal, after: state.checkpoint)
        {
            state.checkpoint = newer
        }
        return state
    }

    /// The note of the largest checkpoint among the journal's lines, if larger than `kept`'s; lines that do not
    /// decode (a torn last one) are skipped. Signatures are the verifier's to check.
    static func newestCheckpoint(in journal: Data, after kept: String?) -> String? {
        func size(_ note: String) -> UInt64? {
            guard let signed = try? SignedNote(parsing: note) else { return nil }
            return (try? LogCheckpoint(text: signed.text))?.size
        }
        var best = kept.flatMap(size).map { ($0, kept) }
        for line in journal.split(separator: 0x0A) {
            guard let bytes = try? Base64URL.decode(String(decoding: line, as: UTF8.self)) else { continue }
            let note = String(decoding: bytes, as: UTF8.self)
            guard let checkpointSize = size(note), checkpointSize > best?.0 ?? 0 || best == nil else { continue }
            best = (checkpointSize, note)
        }
        guard let best, best.1 != kept else { return nil }
        return best.1
    }

    public func save(_ state: KeyLogState) async throws { try await save(state, durably: true) }

    /// Writes the state atomically and durably, then empties the journal — or, with `durably` false (a
    /// checkpoint-only move), appends the newest checkpoint to the journal, unsynced.
    public func save(_ state: KeyLogState, durably: Bool) async throws {
        let (path, journalPath) = (url.path, self.journalPath)
        if !durably, let note = state.checkpoint {
            let line = Data((Base64URL.encode(Data(note.utf8)) + "\n").utf8)
            let size = try await BlockingExecutor.shared.run { _ in try AtomicFile.append(line, to: journalPath) }
            guard size > Self.maximumJournalBytes else { return }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(state)
        try await BlockingExecutor.shared.run { _ in
            try AtomicFile.write(data, to: path, durable: true)
            if unlink(journalPath) != 0 && errno != ENOENT {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: journalPath])
            }
        }
    }
}
