// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parts of a replication fixed at its start.
extension Replicator {
    /// The datastore's type on the server, its tag key (from the type's access key, made on first use) and its
    /// names, for a replication or a compaction starting at `started`.
    func session(started: ContinuousClock.Instant) async throws -> ReplicationSession {
        try await requireHome()
        let names = try names()
        let key: AccessKey
        if let shared {
            key = try await sharedKey(shared)
        } else {
            key = try await client.replicationAccessKey(type: names.type)
        }
        return ReplicationSession(
            datastore: datastore,
            client: client,
            names: names,
            tags: try RevisionTagKey(accessKey: key),
            started: started,
            pushSelection: [channel?.selector, filter].compactMap { $0 },
            channelSelector: channel?.selector,
            pullFilter: filter
        )
    }

    /// This replication's names: the owner derives the record type from the datastore's name, a member was given it.
    func names() throws -> ReplicationNames {
        let configuration = client.configuration
        let clientID = ClientID(configuration.clientID)
        let type: String
        if let shared {
            type = shared.type
        } else {
            type = try ReplicationTypeKey(
                privateKey: configuration.keys.encryptionKey,
                clientID: clientID.description
            ).recordType(forDatastoreNamed: name)
        }
        return ReplicationNames(
            clientID: clientID,
            owner: shared.map { ClientID($0.ownerID) } ?? clientID,
            type: type,
            server: configuration.apiURL,
            filter: filter
        )
    }

    /// The owner's key for a shared datastore, fetched afresh; when the owner no longer shares it, the local copy
    /// is purged (unless kept) and ``SyncError/Code/accessRevoked`` thrown.
    private func sharedKey(_ shared: SharedDatastore) async throws -> AccessKey {
        let outcome: Result<AccessKey, ClientError>
        do {
            outcome = .success(try await client.sharedAccessKey(type: shared.type, ownerID: shared.ownerID))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let key): return key
        case .failure(let error) where error.code == .notFound || error.code == .forbidden:
            var purged = 0
            if !keepsCopyOnAccessLoss {
                var since: Int64 = 0
                while true {
                    let page = try await datastore.changes(since: since, limit: 1_000)
                    guard !page.changes.isEmpty else { break }
                    for change in page.changes { purged += try await datastore.purge(change.docID) }
                    since = page.lastSequence
                }
            }
            throw SyncError(
                .accessRevoked,
                "the owner no longer shares this datastore with this client"
                    + (keepsCopyOnAccessLoss ? "; the local copy is kept" : "; \(purged) local revisions purged"),
                underlying: error
            )
        case .failure(let error): throw error
        }
    }
}
