// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomDatastore

/// A channel of a replicated datastore: the documents whose winning revision its selector matches, replicated as a
/// record type of their own — and so under an access key of their own. Sharing a channel
/// (``Replicator/share(with:access:)`` on a replicator of that channel) shares those documents alone: a client
/// without the channel cannot decrypt its revisions even from a full copy of the server's database. Partial sync by
/// key, not by routing (Couchbase Sync Gateway's channels route plaintext).
///
/// A document that stops matching stays with the channel's members as it last was; purge it from the channel
/// (``Replicator/purge(_:)`` on the channel's replicator) to take it back.
public struct ReplicationChannel: Sendable, Hashable {
    /// The channel's name: 1 to 64 of `a-z`, `0-9`, `_` and `-`.
    public let name: String
    /// Which documents belong to it.
    public let selector: SelectorFilter

    /// A channel.
    ///
    /// - Throws: ``SyncError/Code/invalidName`` for a name outside the rule above.
    public init(name: String, selector: SelectorFilter) throws(SyncError) {
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-")
            })
        else { throw SyncError(.invalidName, "a channel name is 1 to 64 of a-z, 0-9, _ and -") }
        (self.name, self.selector) = (name, selector)
    }
}
