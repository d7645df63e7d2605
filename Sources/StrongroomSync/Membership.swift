// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomWire

/// What a member of a shared datastore may do.
public enum MemberAccess: String, Sendable, Hashable, Codable, CaseIterable {
    /// Pull the owner's and the writers' revisions; local edits are refused at push (``SyncError/Code/readOnly``).
    case read
    /// Pull, and push revisions of its own, which every member applies.
    case readWrite

    /// The server's spelling (`POST /v2/sync/access`).
    var syncAccess: SyncAccess { self == .read ? .read : .readWrite }
}

/// A member of a shared datastore and its access.
public struct Member: Sendable, Hashable {
    /// The member's client ID.
    public var clientID: UUID
    /// What it may do.
    public var access: MemberAccess

    public init(clientID: UUID, access: MemberAccess) { (self.clientID, self.access) = (clientID, access) }
}

/// Where a shared datastore lives on the server: its owner and its (opaque) record type. The owner hands it to a
/// member (``Replicator/sharedDatastore()``), whose ``Replicator`` then replicates the owner's datastore; its text
/// form is `owner-id/type`.
public struct SharedDatastore: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The client that made the datastore and decides its members.
    public var ownerID: UUID
    /// The datastore's record type.
    public var type: String

    public init(ownerID: UUID, type: String) { (self.ownerID, self.type) = (ownerID, type) }

    /// Parses `owner-id/type`; nil for anything else (a type of `sr1.` and 22 base64url characters).
    public init?(_ description: String) {
        let parts = description.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let owner = UUID(uuidString: String(parts[0])), parts[1].utf8.count == 26,
            parts[1].hasPrefix("sr1."),
            parts[1].utf8.dropFirst(4).allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            })
        else { return nil }
        (ownerID, type) = (owner, String(parts[1]))
    }

    public var description: String { ClientID(ownerID).description + "/" + type }
}

/// A membership change: a record of the datastore's type written and signed by its owner (plain `sr.v` and
/// `sr.m`, a random ID; encrypted `member` and `access`: `read`, `readWrite` or `none`). Every replica folds them in
/// the server's order, so a member's revision is applied only while the member had write access when it was
/// written.
struct MembershipRecord: Sendable, Hashable {
    static let memberField = "member"
    static let accessField = "access"
    static let revoked = "none"

    var member: UUID
    /// nil: revoked.
    var access: MemberAccess?

    init(member: UUID, access: MemberAccess?) { (self.member, self.access) = (member, access) }

    var fields: [String: String] {
        [Self.memberField: ClientID(member).description, Self.accessField: access?.rawValue ?? Self.revoked]
    }

    var plain: [String: String] {
        [
            RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
            RevisionRecord.PlainKey.membership: UUID().uuidString.lowercased(),
        ]
    }

    /// Reads a pulled membership record (already checked: signed by the owner).
    init(fields: [String: String], plain: [String: String]) throws(SyncError) {
        guard plain[RevisionRecord.PlainKey.version] == RevisionRecord.formatVersion else {
            throw SyncError(.unsupportedVersion, "a membership record of an unknown format")
        }
        guard let text = fields[Self.memberField], text.utf8.count == 36, let member = UUID(uuidString: text),
            let accessText = fields[Self.accessField]
        else { throw SyncError(.invalidRecord, "a membership record without a member or an access") }
        if accessText == Self.revoked {
            self.init(member: member, access: nil)
        } else if let access = MemberAccess(rawValue: accessText) {
            self.init(member: member, access: access)
        } else {
            throw SyncError(.invalidRecord, "a membership record with an unknown access")
        }
    }
}

/// The members as a replica has folded them so far, kept in the datastore with the pull checkpoint (JSON: client ID
/// → access). Bounded: at most ``maximumMembers``.
struct MembershipState: Sendable, Hashable, Codable {
    static let maximumMembers = 1_000
    /// The most membership record IDs remembered (the oldest are forgotten first).
    static let maximumRemembered = 10_000

    var access: [String: MemberAccess] = [:]
    /// The membership records applied, oldest first: a server that serves one again (to re-grant a revoked member,
    /// say) is ignored. Optional so that a state written before it decodes.
    var applied: [String]? = []
    /// The members revoked so far (a member shared again leaves it), oldest first, at most ``maximumRemembered``:
    /// every writer of the datastore rotates its key for them (``ReplicationSession/rotateForRevocations(_:)``).
    /// Optional so that a state written before it decodes.
    var revoked: [String]? = []

    static func decode(_ text: String?) -> MembershipState {
        // Written by this code into the encrypted datastore; a damaged one starts empty (the next full pull rebuilds it).
        guard let text, text.utf8.count <= 1_000_000,
            let state = try? JSONDecoder().decode(MembershipState.self, from: Data(text.utf8)),
            state.access.count <= maximumMembers
        else { return MembershipState() }
        return state
    }

    var encoded: String {
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Applies the membership record `recordID` unless it was applied before.
    mutating func apply(_ change: MembershipRecord, recordID: String) throws(SyncError) {
        var seen = applied ?? []
        guard !seen.contains(recordID) else { return }
        try apply(change)
        seen.append(recordID)
        if seen.count > Self.maximumRemembered { seen.removeFirst(seen.count - Self.maximumRemembered) }
        applied = seen
    }

    mutating func apply(_ change: MembershipRecord) throws(SyncError) {
        let key = ClientID(change.member).description
        var gone = revoked ?? []
        if let access = change.access {
            guard self.access.count < Self.maximumMembers || self.access[key] != nil else {
                throw SyncError(.invalidRecord, "a datastore has at most \(Self.maximumMembers) members")
            }
            self.access[key] = access
            gone.removeAll { $0 == key }
        } else {
            if self.access[key] != nil, !gone.contains(key) { gone.append(key) }
            self.access[key] = nil
        }
        if gone.count > Self.maximumRemembered { gone.removeFirst(gone.count - Self.maximumRemembered) }
        revoked = gone
    }

    /// What `member` may do; nil when it is not a member.
    func access(of member: ClientID) -> MemberAccess? { access[member.description] }

    /// Every member.
    var memberIDs: [ClientID] { access.keys.compactMap { ClientID($0) } }

    /// The read-write members.
    var writers: [ClientID] { access.filter { $0.value == .readWrite }.keys.compactMap { ClientID($0) } }

    /// The clients whose revisions count: the owner and every read-write member.
    func allowedWriters(owner: ClientID) -> Set<ClientID> { Set(writers).union([owner]) }

    var members: [Member] {
        access.compactMap { id, access in UUID(uuidString: id).map { Member(clientID: $0, access: access) } }
            .sorted { $0.clientID.uuidString < $1.clientID.uuidString }
    }
}
