// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

/// Who may write, own and set access for a replicated datastore's type (`sr1.…`): the sync rules, beside the other
/// authorisation rules (``Authorization``). The store answers facts (who owns a type, what a member was given, whether
/// a claim holds); the decisions are made here as outcomes, and the statuses they are answered with are chosen here
/// too, so routes only ask.
///
/// Rules:
/// - a type no owner has set access to is open, as every type is; only a replicated type can have an owner, so a write
///   of any other type costs no lookup;
/// - once an owner has set a member's access, the owner and its read-write members write the type; a read-only member
///   writes its own checkpoint records only; a revoked member or a stranger writes nothing;
/// - only the type's writer becomes its owner (its first record is the claimant's, and no other writer shared the
///   type with it), so a member can never claim a datastore shared with it; after that, only the owner sets access.
struct SyncAuthorization: Sendable {
    let store: any SyncStore
    let limits: ServerLimits

    /// What a client may write to a replicated type.
    enum WriteDecision: Sendable, Equatable {
        /// Any record: the owner, a read-write member, anyone while the type has no owner.
        case allowed
        /// A read-only member: its own checkpoint records only.
        case checkpointsOnly
        /// A revoked member, or a client that was never one.
        case refused
    }

    /// What `caller` may write to records of `type`.
    func writeDecision(type: String, caller: String) async throws -> WriteDecision {
        guard type.hasPrefix(ReplicatedType.prefix) else { return .allowed }
        switch try await store.syncMembership(type: type, caller: caller) {
        case .unowned, .owner, .member(.readWrite): return .allowed
        case .member(.read): return .checkpointsOnly
        case .member(.revoked), .stranger: return .refused
        }
    }

    /// 403 unless `caller` may write a record of `type` (a read-only member: a checkpoint record only).
    func requireWrite(type: String, caller: String, isCheckpoint: Bool = false) async throws {
        switch try await writeDecision(type: type, caller: caller) {
        case .allowed: return
        case .checkpointsOnly where isCheckpoint: return
        case .checkpointsOnly: throw ServerError.forbidden("this client may only read that shared datastore")
        case .refused:
            throw ServerError.forbidden("this client is not (or no longer) a member of that shared datastore")
        }
    }

    /// Sets `member`'s access to `type` on behalf of `caller`, who becomes the type's owner if it has none and may
    /// claim it: 400 for a type that is not replicated or the caller's own access, 403 for a client that does not
    /// own the type and may not claim it, 413 past ``ServerLimits/syncMembersPerType`` or
    /// ``ServerLimits/syncOwnedTypesPerClient``.
    func setAccess(_ access: SyncAccess, of member: String, type: String, by caller: String) async throws {
        guard type.hasPrefix(ReplicatedType.prefix) else {
            throw ServerError.badRequest("only a replicated datastore's type (\(ReplicatedType.prefix)…) has members")
        }
        guard member != caller else { throw ServerError.badRequest("the owner's own access is not set") }
        let outcome = try await store.setSyncAccess(
            access,
            of: member,
            type: type,
            by: caller,
            maximumMembers: limits.syncMembersPerType,
            maximumOwnedTypes: limits.syncOwnedTypesPerClient
        )
        switch outcome {
        case .set: return
        case .ownedByAnother: throw ServerError.forbidden("only the datastore's owner sets its members' access")
        case .notItsWriter:
            throw ServerError.forbidden("only the client that writes this datastore can own it; it was shared with you")
        case .tooManyOwnedTypes:
            throw ServerError.tooLarge("a client owns at most \(limits.syncOwnedTypesPerClient) shared types")
        case .tooManyMembers:
            throw ServerError.tooLarge("a shared datastore has at most \(limits.syncMembersPerType) members")
        }
    }
}
