// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import StrongroomSync

/// The membership fold: a record served again (a hostile server replaying an old grant after a revoke) changes
/// nothing; the state decodes from what an earlier version wrote; a damaged one starts empty.
@Suite struct MembershipStateTests {
    @Test("a replayed grant does not undo a revoke")
    func replayIgnored() throws {
        let member = UUID()
        var state = MembershipState()
        try state.apply(MembershipRecord(member: member, access: .readWrite), recordID: "grant")
        try state.apply(MembershipRecord(member: member, access: nil), recordID: "revoke")
        try state.apply(MembershipRecord(member: member, access: .readWrite), recordID: "grant")
        #expect(state.access.isEmpty)
        #expect(MembershipState.decode(state.encoded) == state)
        #expect(MembershipState.decode(#"{"access":{"\#(member.uuidString.lowercased())":"read"}}"#).members.count == 1)
        #expect(MembershipState.decode("not json") == MembershipState())
    }

    @Test("a revoked member is remembered for the writers' rotations until it is shared with again")
    func revokedRemembered() throws {
        let (member, stranger) = (UUID(), UUID())
        var state = MembershipState()
        try state.apply(MembershipRecord(member: member, access: .read), recordID: "grant")
        try state.apply(MembershipRecord(member: stranger, access: nil), recordID: "not a member")
        #expect(state.revoked == [])
        try state.apply(MembershipRecord(member: member, access: nil), recordID: "revoke")
        #expect(state.revoked == [member.uuidString.lowercased()])
        #expect(MembershipState.decode(state.encoded) == state)
        try state.apply(MembershipRecord(member: member, access: .readWrite), recordID: "again")
        #expect(state.revoked == [])
        // A state an earlier version wrote has none.
        #expect(MembershipState.decode(#"{"access":{}}"#).revoked == nil)
    }
}
