// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One replication's fixed parts, and what both directions share: which revisions the server lacks, the members as
/// the last pull folded them, and a read-write member's sharing of its own records. Push and pull are in
/// `ReplicationSession+Push.swift` and `+Pull.swift`.
struct ReplicationSession: Sendable {
    /// Changes read from the datastore per push round: one revs_diff and one bulk write (at most 500 records).
    static let pushPageSize = 500
    /// Records read from the server per pull round (the most v1 search returns), applied in one transaction.
    static let pullPageSize = 1_000
    /// The most request bytes of revision bodies one bulk write carries (the server takes 16 MiB).
    static let batchBytes = 8 << 20

    let datastore: Datastore
    let client: Client
    let names: ReplicationNames
    let tags: RevisionTagKey
    let started: ContinuousClock.Instant
    /// What a pushed document's winning revision must match (a channel's selector, a filter).
    var pushSelection: [SelectorFilter] = []
    /// A channel's selector: what every live revision pushed into the channel must match itself (not only its
    /// document's winner), so that a conflicting revision of another channel never enters this one's key.
    var channelSelector: SelectorFilter?
    /// What a pulled revision must match to be applied.
    var pullFilter: SelectorFilter?

    /// The datastore's record type.
    var type: String { names.type }
    /// This client.
    var clientID: ClientID { names.clientID }
    /// The datastore's owner.
    var owner: ClientID { names.owner }

    /// The revisions of `revisions` whose records the server does not hold for this datastore.
    func unheld(_ revisions: [(docID: String, revID: String)]) async throws -> [(docID: String, revID: String)] {
        var missing = Set<String>()
        let tagged = revisions.map {
            (docID: $0.docID, revID: $0.revID, tag: tags.revisionTag(docID: $0.docID, revID: $0.revID))
        }
        for chunk in tagged.chunked(into: 1_000) {
            missing.formUnion(try await client.missingRevisionTags(type: type, tags: chunk.map(\.tag)))
        }
        return tagged.filter { missing.contains($0.tag) }.map { (docID: $0.docID, revID: $0.revID) }
    }

    /// Asks the server to delete this client's records of the revisions `revisions` names (at most 1,000 a request).
    func removeFromServer(_ revisions: [(docID: String, revID: String)]) async throws {
        for chunk in revisions.chunked(into: 1_000) {
            _ = try await client.removeRevisions(
                type: type,
                tags: chunk.map { tags.revisionTag(docID: $0.docID, revID: $0.revID) }
            )
        }
    }

    /// The members as folded by the last pull.
    func membership() async throws -> MembershipState {
        MembershipState.decode(try await datastore.checkpoint(names.membersKey))
    }

    /// Writes a membership change (the owner's), then pulls so this replica folds it in the server's order.
    func writeMembership(_ change: MembershipRecord) async throws {
        _ = try await SyncError.overCaps("a membership change") {
            try await client.write(type: type, data: change.fields, plain: change.plain)
        }
        var report = ReplicationReport()
        try await pull(&report, { _ in })
    }

    /// Rotates this client's key of the type for every member revoked since it last did
    /// (docs/design/Revocation.md, "Shared datastores"): a fresh key sealed to the readers that remain, so what this
    /// writer pushes from now on — revisions and attachment bodies — opens under no key a revoked member held. A
    /// writer that holds no key of the type yet (it never wrote) has nothing to rotate; its first key is made after
    /// the revocation. Run by the owner and every read-write member before they push.
    func rotateForRevocations(_ state: MembershipState) async throws {
        let done = try await rotatedFor()
        let pending = (state.revoked ?? []).filter { !done.contains($0) }
        guard !pending.isEmpty else { return }
        if try await client.hasWriterKey(type: type) {
            try await client.rotateAccessKey(type: type, revoking: Set(pending.compactMap { UUID(uuidString: $0) }))
        }
        try await noteRotated(for: pending, after: done)
    }

    /// Notes that this client's key of the type no longer opens for `members` (at most
    /// ``MembershipState/maximumRemembered`` remembered, the oldest forgotten first).
    func noteRotated(for members: [String]) async throws {
        try await noteRotated(for: members, after: try await rotatedFor())
    }

    /// The members this client has rotated its key of the type for, oldest first.
    private func rotatedFor() async throws -> [String] {
        (try await datastore.checkpoint(names.rotatedForKey) ?? "").split(separator: " ").map(String.init)
    }

    private func noteRotated(for members: [String], after done: [String]) async throws {
        var noted = done
        noted.append(contentsOf: members.filter { !done.contains($0) })
        if noted.count > MembershipState.maximumRemembered {
            noted.removeFirst(noted.count - MembershipState.maximumRemembered)
        }
        try await datastore.setCheckpoint(names.rotatedForKey, noted.joined(separator: " "))
    }

    /// A read-write member's records are readable by the owner and every member: it makes the owner its
    /// authorizer for the type (so the owner can share them with members who join later) and shares them with each
    /// member, and stops sharing them with those who left.
    func shareBack(_ state: MembershipState) async throws {
        let key = names.sharedBackKey
        var done = SharedBack(try await datastore.checkpoint(key))
        let wanted = Set(state.memberIDs).union([owner]).subtracting([clientID])
        if !done.authorizerAdded {
            try await client.add(authorizerID: owner.uuid, type: type)
            done.authorizerAdded = true
        }
        for reader in wanted.subtracting(done.readers) {
            try await client.share(type: type, readerID: reader.uuid)
            done.readers.insert(reader)
            try await datastore.setCheckpoint(key, done.text)
        }
        for reader in done.readers.subtracting(wanted) {
            // The key rotated already for a revoked member (rotateForRevocations, before this); here only its
            // share goes.
            try await client.revoke(type: type, readerID: reader.uuid, rotate: false)
            done.readers.remove(reader)
        }
        try await datastore.setCheckpoint(key, done.text)
    }
}

/// What a read-write member has shared back, kept as a checkpoint in its datastore: `authorizer` once the owner is
/// its authorizer for the type, then each reader's ID, space-separated (the text earlier versions wrote).
struct SharedBack: Equatable {
    var authorizerAdded = false
    var readers: Set<ClientID> = []

    /// Reads the checkpoint; words that are neither are ignored (the checkpoint is this code's, inside the encrypted
    /// datastore).
    init(_ text: String?) {
        for word in (text ?? "").split(separator: " ") {
            if word == "authorizer" {
                authorizerAdded = true
            } else if let reader = ClientID(word) {
                readers.insert(reader)
            }
        }
    }

    var text: String {
        ((authorizerAdded ? ["authorizer"] : []) + readers.map(\.description)).sorted().joined(separator: " ")
    }
}
