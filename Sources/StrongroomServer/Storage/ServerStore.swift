// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomWire

/// Everything the server keeps, one part per aggregate: each route collection takes only the part it uses.
/// Implementations must make each method atomic; the server itself holds no state, so several instances can share one
/// store. ``SQLServerStore`` implements every part once for SQLite and PostgreSQL.
///
/// Identifiers are typed (`ClientID`, `RecordID`, ``AccessKeySlot``) wherever two could be swapped; stored rows
/// keep their wire text.
package protocol ServerStore: ClientStore, SharingStore, RecordStore, SyncStore, NoteStore, CertificateStore,
    IntegrityStore, KeyLogStore
{
    /// Creates or upgrades the schema; safe to call from several instances at once.
    func migrate() async throws
    /// Whether the database answers and its schema is current (throws when it cannot be reached).
    func isSchemaCurrent() async throws -> Bool
}

/// Settings, registration tokens, clients and the TSV1 replay cache.
package protocol ClientStore: Sendable {
    // MARK: Settings and registration tokens

    /// A server-wide setting (such as the backup client's ID), or nil.
    func setting(_ key: String) async throws -> String?
    /// Stores a setting unless one with that key exists (the first instance to start wins).
    func setSettingIfAbsent(_ key: String, value: String) async throws
    /// Adds a registration token; an existing token of that value is left as it is.
    func createRegistrationToken(_ token: StoredRegistrationToken) async throws
    /// Every registration token, by name.
    func registrationTokens() async throws -> [StoredRegistrationToken]
    /// Counts one use of an enabled, not exhausted token; false when it cannot be used.
    func useRegistrationToken(_ token: String) async throws -> Bool
    /// Disables a token; false when there is no such token.
    func revokeRegistrationToken(_ token: String) async throws -> Bool

    // MARK: Clients

    /// Adds a registered client and, in the same transaction, its registration leaf to the key log (when its keys
    /// are a pair a leaf binds).
    func insertClient(_ client: StoredClient) async throws
    /// The client with this ID, or nil.
    func client(id: ClientID) async throws -> StoredClient?
    /// The client with this API key ID (for client-credentials tokens), or nil.
    func client(apiKeyID: String) async throws -> StoredClient?
    /// The names of these clients, by ID (unknown ones are left out).
    func clientNames(ids: [String]) async throws -> [String: String]
    /// Up to `limit` EAKs `reader` holds, from `start` in (writer, user, type) order, each with its type's current
    /// generation.
    func heldAccessKeys(reader: String, start: Int, limit: Int) async throws -> [(StoredAccessKey, Int)]
    /// Commits a client's key change (``KeyChange``) in one transaction, or reports why it cannot.
    func changeKeys(_ change: KeyChange) async throws -> KeyChange.Outcome
    /// Stores a client's post-quantum public key and appends `leaf`, which records it, in one transaction; the
    /// leaf's index.
    func publishHybridKey(clientID: String, key: String, leaf: PendingKeyLogLeaf) async throws -> UInt64
    /// The newest leaf recording a post-quantum key of `clientID`.
    func newestHybridKeyLeaf(clientID: String) async throws -> StoredKeyLogLeaf?

    // MARK: TSV1 replay cache

    /// Records a nonce; false when it was already seen (a replay).
    func rememberNonce(publicKey: String, nonce: String, timestamp: Int64) async throws -> Bool
    /// Forgets nonces older than `timestamp` (Unix seconds): their signatures fail the time window anyway.
    func forgetNonces(olderThan timestamp: Int64) async throws
}

/// Access keys and the policies that share a writer's records.
package protocol SharingStore: Sendable {
    // MARK: Access keys

    /// The EAK in `slot`, or nil.
    func accessKey(in slot: AccessKeySlot) async throws -> StoredAccessKey?
    /// Inserts an EAK; false when that slot already holds one.
    func insertAccessKey(_ key: StoredAccessKey) async throws -> Bool
    /// Stores an EAK, replacing the one that slot holds (a reader's slot shared again); when the slot held no EAK or
    /// another one, logs a grant commitment at `time` in the same transaction. With a `fence`, only while the type's
    /// generation is `fence`, checked under the lock a rotation takes (so a rotation committed first refuses it, and
    /// one committed after sees this reader): nil when stored, else the current generation and nothing stored.
    func replaceAccessKey(_ key: StoredAccessKey, logAt time: Timestamp, fence: Int?) async throws -> Int?
    /// Deletes the EAK in `slot` (nothing when there is none); when there was one, logs a revocation commitment at
    /// `time` in the same transaction.
    func deleteAccessKey(in slot: AccessKeySlot, logAt time: Timestamp) async throws
    /// The generation of `(writer, user, type)`'s access key (1 when never rotated) and up to `limit` readers
    /// holding an EAK of it, sorted.
    func accessKeyGeneration(of scope: AccessKeyScope, limit: Int) async throws -> (generation: Int, readers: [String])
    /// The generation of `(writer, user, type)`'s access key: 1 when never rotated.
    func currentKeyGeneration(of scope: AccessKeyScope) async throws -> Int
    /// Up to `limit` of `(writer, user, type)`'s links between generations, newest first: those of generations
    /// below `below` (every one when nil).
    func accessKeyLinks(of scope: AccessKeyScope, below: Int?, limit: Int) async throws -> [AccessKeyLink]
    /// Whether `reader` holds an EAK of `(writer, user, type)`.
    func holdsAccessKey(of scope: AccessKeyScope, reader: String) async throws -> Bool
    /// Commits a rotation in one transaction: see ``AccessKeyRotation``.
    func rotateAccessKey(_ rotation: AccessKeyRotation, logAt time: Timestamp) async throws -> AccessKeyRotation.Outcome

    // MARK: Policies

    /// The policy of `slot`, or nil when none was ever set.
    func policy(for slot: AccessKeySlot) async throws -> StoredPolicy?
    /// Inserts or replaces a policy; when its authorizer flag changes, logs the grant or revocation's commitment at
    /// `time` in the same transaction.
    func savePolicy(_ policy: StoredPolicy, logAt time: Timestamp) async throws
    /// Clears the authorizer flag of `authorizerID` for every type of the writer, and the reads it granted itself;
    /// logs a revocation commitment at `time` for each type it cleared.
    func clearAuthorizer(
        writerID: ClientID,
        userID: ClientID,
        authorizerID: ClientID,
        logAt time: Timestamp
    )
        async throws
    /// One page of the read grants a writer gave, ordered by reader and type.
    func readPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy]
    /// One page of the read grants a reader received, ordered by writer and type.
    func readPolicies(readerID: String, page: ListingPage) async throws -> [StoredPolicy]
    /// One page of the authorizers a writer appointed, ordered by authorizer and type.
    func authorizerPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy]
    /// One page of the writers an authorizer acts for, ordered by writer and type.
    func authorizerPolicies(authorizerID: String, page: ListingPage) async throws -> [StoredPolicy]
}

/// The key log's leaves (`/v2/keylog/…`).
package protocol KeyLogStore: Sendable {
    /// Appends `leaves` in order, in one transaction; returns the first one's index (nil for none).
    @discardableResult
    func appendKeyLog(_ leaves: [PendingKeyLogLeaf]) async throws -> UInt64?
    /// How many leaves the log holds.
    func keyLogSize() async throws -> UInt64
    /// At most `limit` leaves from `index` on, in order.
    func keyLogLeaves(from index: UInt64, limit: Int) async throws -> [StoredKeyLogLeaf]
    /// The first `limit` key leaves (registration, key changes) of a client, in order.
    func keyLeaves(clientID: String, limit: Int) async throws -> [StoredKeyLogLeaf]
    /// A client's newest key leaf (what its lookup proves), or nil when it is not in the log.
    func newestKeyLeaf(clientID: String) async throws -> StoredKeyLogLeaf?
    /// At most `limit` commitment leaves after `index` that `party` wrote or is the other party of, in order.
    func commitmentLeaves(party: String, after index: UInt64?, limit: Int) async throws -> [StoredKeyLogLeaf]
    /// The newest `limit` leaves logging `scope`'s access-key generations, newest first; nil when `caller` is
    /// neither its writer nor a holder of one of its EAKs.
    func generationLeaves(of scope: AccessKeyScope, for caller: String, limit: Int) async throws -> [StoredKeyLogLeaf]?
    /// Logs the registration of up to `batch` clients stored before the log existed, after `cursor`; returns where
    /// it stopped, nil when no client is left.
    func backfillKeyLog(after cursor: KeyLogBackfillCursor?, batch: Int) async throws -> KeyLogBackfillCursor?
}

/// Records and file records.
package protocol RecordStore: Sendable {

    /// Inserts a record and returns it with its index.
    func insertRecord(_ record: StoredRecordText) async throws -> StoredRecordText
    /// The record (committed or pending) with this ID, or nil.
    func record(id: RecordID) async throws -> StoredRecord?
    /// The record (committed or pending) with this ID with its data as the stored JSON text, or nil.
    func recordText(id: RecordID) async throws -> StoredRecordText?
    /// Replaces a record's data when its version is `expectedVersion`: `.conflict` when it is another, `.notFound`
    /// when there is no such record.
    func updateRecord(
        id: RecordID,
        expectedVersion: String,
        with update: RecordUpdate
    ) async throws -> VersionedOutcome<StoredRecord>
    /// Makes a pending file record visible; nil when there is no such pending record.
    func commitFile(id: RecordID, lastModified: Timestamp) async throws -> StoredRecord?
    /// Deletes a record when its version is `expectedVersion` (outcomes as for updates).
    func deleteRecord(id: RecordID, expectedVersion: String) async throws -> VersionedOutcome<Void>
    /// Replaces the data of each of `rewraps`, records of `scope`, in one transaction: each one still at its version
    /// whose new data differs only in data-key wraps (``RecordRewrap/onlyWrapsDiffer(_:from:)``) gets it, its new
    /// version and `time`. Answers each one's outcome in order; when any is ``RecordRewrap/Outcome/changed``,
    /// nothing is stored.
    func rewrapRecords(
        _ rewraps: [RecordRewrap],
        of scope: AccessKeyScope,
        at time: Timestamp
    ) async throws -> [RecordRewrap.Outcome]
    /// A page of `scope`'s committed records after `index`, in index order, at most `limit` of them and (past the
    /// first) at most `bytes` bytes of stored data: what a rotation re-wraps (``RewrapListing``).
    func rewrapListing(
        of scope: AccessKeyScope,
        after index: Int64,
        limit: Int,
        bytes: Int
    ) async throws
        -> [RewrapListing.Entry]
    /// The prologue a re-wrap stored for a committed file record (``FilePrologue``), served in place of its body's
    /// first 100 bytes; nil when it is served as uploaded (or there is no such file).
    func filePrologue(id: RecordID) async throws -> String?
    /// Stores a committed file record's re-wrapped `prologue` and the checksum of the file served with it, with a
    /// new version and `time`, when the record is at `expectedVersion` (outcomes as for updates).
    func rewrapFile(
        id: RecordID,
        expectedVersion: String,
        prologue: String,
        fileMeta: FileMeta,
        newVersion: String,
        at time: Timestamp
    ) async throws -> VersionedOutcome<StoredRecord>
    /// One batch of committed records in index order, metadata only or in full.
    func records(matching query: RecordQuery) async throws -> [StoredRecord]
    /// The committed records with these IDs, in full, in no particular order (missing ones are left out).
    func records(ids: [RecordID]) async throws -> [StoredRecord]
    /// Deletes pending file records created before `time` and returns their IDs (their blobs go next).
    func deletePendingFiles(createdBefore time: Timestamp) async throws -> [String]
}

/// Replication's revision records (`/v2/sync/…`): blind tags unique per writer and type.
package protocol SyncStore: Sendable {
    /// The tags among `tags` that no committed record of `type` readable by `caller` carries (in no particular
    /// order).
    func missingSyncTags(type: String, tags: [String], readableBy caller: String) async throws -> Set<String>
    /// Stores each record with its revision tag and document tag in one transaction, skipping one whose writer
    /// already stored a record of that type and tag; returns, in order, each record's ID (the earlier one's when
    /// skipped) and whether it was stored. Refuses the whole batch (``ServerError/Code/tooLarge``) when a writer would
    /// hold more than `maximumPerWriter` records of a type, or more than `maximumPerDocument` revision records of one
    /// document of it.
    func insertSyncRecords(
        _ records: [(record: StoredRecordText, tag: String, document: String)],
        maximumPerWriter: Int,
        maximumPerDocument: Int
    ) async throws
        -> [(recordID: String, created: Bool)]
    /// Stores a record of a replicated type written through v1 — a bookkeeping record, or an attachment body's
    /// (pending) file record — and checks in the same transaction that its writer keeps at most `maximumPerWriter`
    /// records of the type and, for a file record, that its declared size fits beside the type's committed files
    /// (every writer's) within `maximumBytes`; refuses (``ServerError/Code/tooLarge``, nothing stored) otherwise. A
    /// pending file holds no room: its bytes count from its commit
    /// (``commitReplicatedFile(id:lastModified:maximumBytes:)``). Returns the record with its index.
    func insertReplicatedRecord(
        _ record: StoredRecordText,
        maximumPerWriter: Int,
        maximumBytes: Int64
    ) async throws -> StoredRecordText
    /// For many callers waiting on one type from one index, in four statements whatever their number: which of them
    /// may read any record of the type at all (they write it, or a writer shared it with them: two index lookups
    /// each); the window's bounds (at most `window` records after `after`, by the `(type, idx)` index); its
    /// committed records (index, writer, user, plain meta); and the callers' read grants on those records' writers.
    /// Nothing is examined when no caller may read anything.
    func changeWindows(type: String, after: Int64, window: Int, callers: Set<String>) async throws -> ChangeWindows
    /// Commits a pending file record of a replicated type (as ``RecordStore/commitFile(id:lastModified:)``) and
    /// checks in the same transaction that the type's committed files, this one among them, hold at most
    /// `maximumBytes`; refuses (``ServerError/Code/tooLarge``, nothing committed) otherwise. Concurrent commits of one
    /// type take turns. Nil when there is no such pending record.
    func commitReplicatedFile(
        id: RecordID,
        lastModified: Timestamp,
        maximumBytes: Int64
    ) async throws
        -> StoredRecord?
    /// Deletes the records of `type` that `writer` wrote with one of `tags`; returns how many.
    func deleteSyncRecords(type: String, tags: [String], writer: String) async throws -> Int
    /// What `caller` is to `type`: ``SyncMembership/unowned`` when no owner has set members' access
    /// (``SyncAuthorization`` decides what that allows).
    func syncMembership(type: String, caller: String) async throws -> SyncMembership
    /// Sets `member`'s access to `type` on behalf of `caller` in one transaction, making `caller` the type's owner
    /// when it has none and `caller` is its writer (its first record is the caller's, and no other writer shared the
    /// type with it); within `maximumMembers` per type and `maximumOwnedTypes` per owner. Nothing is changed unless
    /// the outcome is ``SyncAccessChange/set``.
    func setSyncAccess(
        _ access: SyncAccess,
        of member: String,
        type: String,
        by caller: String,
        maximumMembers: Int,
        maximumOwnedTypes: Int
    ) async throws -> SyncAccessChange
}

/// What a client is to a replicated type (`POST /v2/sync/access` sets it).
package enum SyncMembership: Sendable, Equatable {
    /// No owner has set members' access yet.
    case unowned
    /// The client owns the type.
    case owner
    /// The owner gave the client this access (``SyncAccess/revoked`` after a revoke).
    case member(SyncAccess)
    /// The type has an owner, and the client was never a member.
    case stranger
}

/// The outcome of ``SyncStore/setSyncAccess(_:of:type:by:maximumMembers:maximumOwnedTypes:)``.
package enum SyncAccessChange: Sendable, Equatable {
    /// Set (and the caller owns the type).
    case set
    /// Another client owns the type.
    case ownedByAnother
    /// The type has no owner, and the caller may not claim it: it is not the type's writer.
    case notItsWriter
    /// The caller owns as many types as it may.
    case tooManyOwnedTypes
    /// The type has as many members as it may.
    case tooManyMembers
}

/// Notes, their quotas and views.
package protocol NoteStore: Sendable {

    /// Stores a note within `quota` (expired notes are deleted first and count against nothing).
    func insertNote(_ note: StoredNote, quota: NoteQuota) async throws -> NoteInsertion
    /// Counts one view of a note addressed to `recipientSigningKey` and returns it, or nil when it is missing,
    /// addressed to another key, used up or expired (nothing is counted then). A note whose last view this was is
    /// deleted.
    func viewNote(_ lookup: NoteLookup, recipientSigningKey: String, now: Timestamp) async throws -> StoredNote?
}

/// The certificates the CA issued and revoked.
package protocol CertificateStore: Sendable {

    /// Records a certificate the CA issued.
    func insertCertificate(_ certificate: StoredCertificate) async throws
    /// The certificate with this serial (lowercase hex), or nil.
    func certificate(serial: String) async throws -> StoredCertificate?
    /// The newest `limit` certificates (at most 10 000), of one client or of all.
    func certificates(clientID: String?, limit: Int) async throws -> [StoredCertificate]
    /// How many certificates `clientID` was issued at or after `time` (Unix seconds).
    func certificateCount(clientID: String, issuedSince time: Int64) async throws -> Int
    /// Revokes a certificate in force; false when there is no such certificate or it was revoked already.
    func revokeCertificate(serial: String, at time: Int64, reason: String) async throws -> Bool
    /// Revoked certificates still valid at `time` (Unix seconds), oldest revocation first, at most `limit`: what a
    /// revocation list names (an expired certificate needs no entry).
    func revokedCertificates(validAt time: Int64, limit: Int) async throws -> [StoredCertificate]
    /// The next revocation list's number: one more than the last one handed out by any instance sharing the
    /// database, and at least `minimum` (lists numbered by the clock before this counter existed stay below it).
    func nextRevocationListNumber(atLeast minimum: Int64) async throws -> Int64
}

/// Integrity check-in: instances, challenges, reports and verdicts.
package protocol IntegrityStore: Sendable {

    /// Registers an instance unless its client has `limit` already; returns the stored instance (an existing
    /// instance ID is never rebound or rekeyed) and whether this call inserted it, or nil when over the limit.
    func registerIntegrityInstance(
        _ instance: StoredIntegrityInstance,
        limit: Int
    ) async throws -> (instance: StoredIntegrityInstance, inserted: Bool)?
    /// The instance, or nil.
    func integrityInstance(id: String) async throws -> StoredIntegrityInstance?
    /// Remembers a challenge nonce for `clientID` until `expires`; expired ones go, and the client keeps at most
    /// `limit` (its oldest are dropped).
    func insertIntegrityChallenge(nonce: String, clientID: String, expires: Int64, now: Int64, limit: Int) async throws
    /// Uses up a challenge: true only once, for its client, before it expires.
    func consumeIntegrityChallenge(nonce: String, clientID: String, now: Int64) async throws -> Bool
    /// Stores a report, sets its instance's verdict, and holds the client when the verdict is `compromised`; the
    /// client keeps its newest `keep` reports.
    func insertIntegrityReport(_ report: StoredIntegrityReport, keep: Int) async throws
    /// The newest `limit` reports (at most 100), of one client or of all, newest first, with instance names;
    /// only reports stored before index `before` when it is given (the next page).
    func integrityReports(clientID: String?, limit: Int, before: Int64?) async throws -> [StoredIntegrityReport]
    /// The client's standing: `compromised` while it is held, else the worst of its instances' newest verdicts,
    /// or nil when none has reported.
    func integrityVerdict(clientID: String) async throws -> IntegrityVerdict?
    /// Lifts a client's hold and forgets its instances' verdicts (`strongroom-server integrity clear`); false when
    /// there was nothing to clear.
    func clearIntegrity(clientID: String) async throws -> Bool
}

extension ClientStore {
    /// The client whose stored ID text is `text`, or nil (also for text that is not a UUID).
    func client(text: String) async throws -> StoredClient? {
        guard let id = ClientID(text) else { return nil }
        return try await client(id: id)
    }
}
