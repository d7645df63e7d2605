// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The names one replication goes by, derived once: who replicates, whose datastore it is, its record type on the
/// server, and the keys of the checkpoints and notes it keeps in the datastore.
struct ReplicationNames: Sendable, Hashable {
    /// This client.
    let clientID: ClientID
    /// The datastore's owner: this client for its own datastores.
    let owner: ClientID
    /// The datastore's (or channel's) record type.
    let type: String
    /// The replication's name in the datastore's checkpoints: client, server, type, and a filter's selector (as
    /// CouchDB's replication ID includes the filter, so a changed filter starts over).
    let checkpointID: String
    /// The members revoked that this client has rotated its key of the type for
    /// (``ReplicationSession/rotateForRevocations(_:)``): per client, server and type, whatever the filter (the key
    /// is the type's, not the replication's).
    let rotatedForKey: String

    init(clientID: ClientID, owner: ClientID, type: String, server: URL, filter: SelectorFilter?) {
        (self.clientID, self.owner, self.type) = (clientID, owner, type)
        let base = "\(clientID)@\(server.absoluteString)/\(type)"
        rotatedForKey = "rotated-for:" + base
        if let filter {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let text = (try? encoder.encode(filter.selector)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            checkpointID = base + "?filter=" + text
        } else {
            checkpointID = base
        }
    }

    /// Whether this client owns the datastore.
    var isOwner: Bool { owner == clientID }

    /// The changes-feed sequence pushed up to.
    var pushKey: String { "push:" + checkpointID }
    /// The changes-feed sequence up to which the server was found to still hold what it acknowledged: the last
    /// sync's push is checked again at the next one (an acknowledged and then dropped write is found within a sync).
    var pushVerifiedKey: String { "push-verified:" + checkpointID }
    /// The server index pulled up to.
    var pullKey: String { "pull:" + checkpointID }
    /// The members folded up to the pull checkpoint.
    var membersKey: String { "members:" + checkpointID }
    /// The clients a member has shared its own records with.
    var sharedBackKey: String { "shared-back:" + checkpointID }
    /// The replica's checkpoint record on the server and the epoch it last wrote (``RemoteCheckpoint``).
    var remoteKey: String { "remote:" + checkpointID }

    /// The note of the file record that holds the attachment body with content address `address` (every such note
    /// starts with `attachmentKey("")`).
    func attachmentKey(_ address: String) -> String { "attachment:" + checkpointID + ":" + address }
}
