// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomWire

/// Everything the server keeps. Implementations must make each method atomic; the server itself holds no state,
/// so several instances can share one store.
public protocol ServerStore: Sendable {
    /// Creates or upgrades the schema.
    func migrate() async throws

    // MARK: Settings and registration tokens
    func setting(_ key: String) async throws -> String?
    func setSettingIfAbsent(_ key: String, value: String) async throws
    func createRegistrationToken(_ token: StoredRegistrationToken) async throws
    func registrationTokens() async throws -> [StoredRegistrationToken]
    /// Counts one use of an enabled, not exhausted token; false when it cannot be used.
    func useRegistrationToken(_ token: String) async throws -> Bool
    func revokeRegistrationToken(_ token: String) async throws -> Bool

    // MARK: Clients
    func insertClient(_ client: StoredClient) async throws
    func client(id: String) async throws -> StoredClient?
    func client(apiKeyID: String) async throws -> StoredClient?
    func clientNames(ids: [String]) async throws -> [String: String]

    // MARK: TSV1 replay cache
    /// Records a nonce; false when it was already seen (a replay).
    func rememberNonce(publicKey: String, nonce: String, timestamp: Int64) async throws -> Bool
    func forgetNonces(olderThan timestamp: Int64) async throws

    // MARK: Access keys
    func accessKey(in slot: AccessKeySlot) async throws -> StoredAccessKey?
    /// Inserts an EAK; false when that slot already holds one.
    func insertAccessKey(_ key: StoredAccessKey) async throws -> Bool
    func deleteAccessKey(in slot: AccessKeySlot) async throws

    // MARK: Policies
    func policy(for slot: AccessKeySlot) async throws -> StoredPolicy?
    func savePolicy(_ policy: StoredPolicy) async throws
    /// Clears the authorizer flag of `readerID` for every type, and the reads it granted itself.
    func clearAuthorizer(userID: String, writerID: String, readerID: String) async throws
    /// One page of the read grants a writer gave, ordered by reader and type (the other listings likewise).
    func readPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy]
    func readPolicies(readerID: String, page: ListingPage) async throws -> [StoredPolicy]
    func authorizerPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy]
    func authorizerPolicies(authorizerID: String, page: ListingPage) async throws -> [StoredPolicy]

    // MARK: Records
    /// Inserts a record and returns it with its index.
    func insertRecord(_ record: StoredRecord) async throws -> StoredRecord
    func record(id: String) async throws -> StoredRecord?
    func updateRecord(
        id: String,
        expectedVersion: String,
        newVersion: String,
        plain: [String: String],
        data: [String: String],
        recordSignature: String?,
        lastModified: Timestamp
    ) async throws -> VersionedOutcome<StoredRecord>
    /// Makes a pending file record visible; nil when there is no such pending record.
    func commitFile(id: String, lastModified: Timestamp) async throws -> StoredRecord?
    func deleteRecord(id: String, expectedVersion: String) async throws -> VersionedOutcome<Void>
    func records(matching query: RecordQuery) async throws -> [StoredRecord]
    /// The committed records with these IDs, in full, in no particular order (missing ones are left out).
    func records(ids: [String]) async throws -> [StoredRecord]
    /// Deletes pending file records created before `time` and returns their IDs (their blobs go next).
    func deletePendingFiles(createdBefore time: Timestamp) async throws -> [String]

    // MARK: Notes
    /// Stores a note within `quota` (expired notes are deleted first and count against nothing).
    func insertNote(_ note: StoredNote, quota: NoteQuota) async throws -> NoteInsertion
    /// Counts one view of a note addressed to `recipientSigningKey` and returns it, or nil when it is missing,
    /// addressed to another key, used up or expired (nothing is counted then). A note whose last view this was is
    /// deleted.
    func viewNote(
        id: String?,
        idString: String?,
        recipientSigningKey: String,
        now: Timestamp
    ) async throws -> StoredNote?
}
