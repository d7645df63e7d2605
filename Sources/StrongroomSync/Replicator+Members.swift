// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The owner's side of a shared datastore: who its members are and what they may do.
extension Replicator {
    /// Where this (owned) datastore lives on the server, for members to replicate it
    /// (``init(datastore:sharedDatastore:client:keepsCopyOnAccessLoss:filter:)``).
    public func sharedDatastore() async throws -> SharedDatastore {
        let session = try await ownerSession()
        return SharedDatastore(ownerID: client.configuration.clientID, type: session.type)
    }

    /// Shares this datastore with another client: it gets the datastore's key (an E3DB share of its type) and, by
    /// a membership record every replica folds, `access`. Call it again to change the access. The new member also
    /// gets the records of every read-write member, present or revoked, that synced while a member (they made this
    /// client their authorizer), so it sees every revision from the start.
    ///
    /// - Throws: ``SyncError/Code/notOwner`` on a member's replicator; `ClientError.notFound` for an unknown client.
    public func share(with memberID: UUID, access: MemberAccess) async throws {
        let session = try await ownerSession()
        // The access first: it makes this client the type's owner on the server before the member can see the type
        // (the E3DB share next), so no member can claim it first.
        try await client.setSyncAccess(type: session.type, member: memberID, access: access.syncAccess)
        try await client.share(type: session.type, readerID: memberID)
        let state = try await session.membership()
        // Revoked members' revisions written while they were members are part of the datastore too (a revoked
        // reader has no grant to use: skipped).
        let former = (state.revoked ?? []).compactMap { ClientID($0) }
        for writer in Set(state.writers + former) where writer.uuid != memberID {
            try await Self.ignoringMissingGrant { () throws(ClientError) in
                try await client.share(onBehalfOf: writer.uuid, type: session.type, readerID: memberID)
            }
        }
        try await session.writeMembership(MembershipRecord(member: memberID, access: access))
    }

    /// Stops sharing this datastore with `memberID`: the server refuses its reads of the owner's records and its
    /// writes of the datastore at once, and every replica refuses the revisions it writes from now on (those written
    /// before stay). On its next sync the member learns it has lost access and purges its copy (unless it keeps one).
    ///
    /// By default the revoke is cryptographic (docs/design/Revocation.md, "Shared datastores"): the owner's key of
    /// the datastore rotates at once, and every read-write member rotates its own when its next sync folds the
    /// revocation, before it pushes; so the revoked member — keeping every key it had and a copy of the server's
    /// database and blob store — opens none of the revisions or attachments written afterwards. Older revisions stay
    /// under their generation's key, which the remaining members reach through the links. `rotate: false` keeps the
    /// owner's key (access control only; the read-write members still rotate theirs). Stopped after the membership
    /// change, the owner's next sync finishes the rotation.
    ///
    /// - Returns: what the owner's rotation did; nil when nothing rotated.
    /// - Throws: ``SyncError/Code/notOwner`` on a member's replicator.
    @discardableResult
    public func revoke(_ memberID: UUID, rotate: Bool = true) async throws -> KeyRotationReport? {
        let session = try await ownerSession()
        try await client.setSyncAccess(type: session.type, member: memberID, access: .revoked)
        try await session.writeMembership(MembershipRecord(member: memberID, access: nil))
        let report = try await client.revoke(type: session.type, readerID: memberID, rotate: rotate)
        try await session.noteRotated(for: [ClientID(memberID).description])
        let state = try await session.membership()
        for writer in state.writers where writer.uuid != memberID {
            try await Self.ignoringMissingGrant { () throws(ClientError) in
                try await client.revoke(onBehalfOf: writer.uuid, type: session.type, readerID: memberID)
            }
        }
        return report
    }

    /// The datastore's members as this replica last pulled them (the owner is not listed).
    public func members() async throws -> [Member] {
        let session = try await session(started: .now)
        return try await session.membership().members
    }

    private func ownerSession() async throws -> ReplicationSession {
        guard shared == nil else { throw SyncError(.notOwner, "only the datastore's owner may change its members") }
        return try await session(started: .now)
    }

    /// Runs a share on a writer's behalf; a writer that has not made the owner its authorizer yet (it has not
    /// synced since it joined) is skipped: it shares its records itself on its next sync.
    private static func ignoringMissingGrant(_ body: () async throws(ClientError) -> Void) async throws {
        let outcome: Result<Void, ClientError>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        if case .failure(let error) = outcome, error.code != .notFound, error.code != .forbidden { throw error }
    }
}
