// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

/// A datastore's home: the client and server it replicates with.
///
/// The first replication (or share) of a datastore records its home inside it; every later one checks it before
/// anything is sent or applied. So a datastore synced with the wrong profile is refused (``SyncError/Code/otherHome``)
/// instead of being pushed into another account — whose types would then be pulled back in. Moving a datastore to
/// another client or server is deliberate: ``Replicator/rehome()``.
extension Replicator {
    /// The checkpoint that keeps the home: `<client ID> <server URL>`.
    static let homeKey = "replication-home"

    /// This replicator's client and server, as the home records them.
    var home: String {
        let configuration = client.configuration
        var url = configuration.apiURL.absoluteString
        while url.hasSuffix("/") { url.removeLast() }
        return ClientID(configuration.clientID).description + " " + url
    }

    /// Refuses a datastore whose home is another client or server; records this one when it has none yet.
    func requireHome() async throws {
        let mine = home
        guard let recorded = try await datastore.checkpoint(Self.homeKey), !recorded.isEmpty else {
            try await datastore.setCheckpoint(Self.homeKey, mine)
            return
        }
        guard recorded != mine else { return }
        let parts = recorded.split(separator: " ", maxSplits: 1).map(String.init)
        let (client, server) = (parts.first ?? "?", parts.count > 1 ? parts[1] : "?")
        let ours = mine.split(separator: " ", maxSplits: 1).map(String.init)
        let what =
            client == ours.first
            ? "the server \(server), not \(ours.last ?? "?")"
            : "the client \(client)\(server == ours.last ? "" : " on \(server)"), not \(ours.first ?? "?")"
        throw SyncError(.otherHome, "this datastore replicates with \(what): nothing was sent or applied")
    }

    /// Makes this replicator's client and server the datastore's home, on purpose: the next replication sends the
    /// datastore's documents to this client's account on this server. Use it to move a datastore; a sync with the
    /// wrong client otherwise fails with ``SyncError/Code/otherHome``.
    public func rehome() async throws {
        try await datastore.setCheckpoint(Self.homeKey, home)
    }
}
