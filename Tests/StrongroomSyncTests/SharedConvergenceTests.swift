// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import Testing

/// Issue 49's first proof, seeded: the convergence test of issue 48 with several clients. An owner, a read-write
/// member, a read-only member, a read-write member who joins and is revoked at seeded steps (and, once revoked, also
/// writes straight to the server with the key it kept), and a reader of one channel edit, move documents between
/// channels and replicate at random. At the end the owner, the writer and the reader hold the same documents, every
/// revision the owner or the writer made is on all three, the reader's refused edits stayed local until it discarded
/// them, no revision the revoked member made after its revoke reached anyone, and the channel's reader never received
/// a revision of the other channel.
///
/// CI runs `STRONGROOM_SHARED_SYNC_SEEDS` seeds (default 2) of `STRONGROOM_SHARED_SYNC_OPERATIONS` steps (default
/// 120) from `STRONGROOM_SHARED_SYNC_SEED` (default 1); `Scripts/sync-convergence.sh` runs many more. A failure names
/// its seed.
@Suite struct SharedConvergenceTests {
    static let token = "shared-convergence-token"
    static let documentIDs = (0..<10).map { "doc-\($0)" }

    /// One client's copy.
    struct Replica {
        let name: String
        let client: Client
        let store: Datastore
        let replicator: Replicator
    }

    /// What the schedule did, checked at the end.
    struct Ledger {
        /// Revisions the owner and the writer made: every one must reach the owner, the writer and the reader.
        var acknowledged: [(docID: String, revID: String)] = []
        /// The reader's local edits: never pushed, never anywhere else.
        var readerEdits: [(docID: String, revID: String)] = []
        /// What the revoked member made after its revoke, locally or straight on the server: never anywhere else.
        var late: [(docID: String, revID: String)] = []
        var refusedPushes = 0
    }

    @Test("owner, writer, reader, a member revoked mid-way and a channel reader converge through a seeded schedule")
    func seeded() async throws {
        let first = UInt64(ConvergenceTests.setting("STRONGROOM_SHARED_SYNC_SEED", 1))
        for seed in first..<(first + UInt64(ConvergenceTests.setting("STRONGROOM_SHARED_SYNC_SEEDS", 2))) {
            try await run(seed: seed, steps: max(ConvergenceTests.setting("STRONGROOM_SHARED_SYNC_OPERATIONS", 120), 8))
        }
    }

    func run(seed: UInt64, steps: Int) async throws {
        let label = "STRONGROOM_SHARED_SYNC_SEED=\(seed) STRONGROOM_SHARED_SYNC_SEEDS=1"
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            var clients: [Client] = []
            for name in ["owner", "writer", "reader", "late", "channel"] {
                clients.append(
                    Client(configuration: try await Client.register(token: Self.token, clientName: name, apiURL: url))
                )
            }
            try await withTemporaryDirectory { folder in
                var stores: [Datastore] = []
                for name in ["owner", "writer", "reader", "late", "channel"] {
                    stores.append(try await SharedDatastoreTests.store(folder, name))
                }
                let publicChannel = try ReplicationChannel(
                    name: "public",
                    selector: SelectorFilter(["kind": "public"])
                )
                let owner = Replica(
                    name: "owner",
                    client: clients[0],
                    store: stores[0],
                    replicator: Replicator(datastore: stores[0], name: "team", client: clients[0])
                )
                let onChannel = Replicator(
                    datastore: stores[0],
                    name: "team",
                    client: clients[0],
                    channel: publicChannel
                )
                let shared = try await owner.replicator.sharedDatastore()
                let sharedChannel = try await onChannel.sharedDatastore()
                try await owner.replicator.share(with: clients[1].configuration.clientID, access: .readWrite)
                try await owner.replicator.share(with: clients[2].configuration.clientID, access: .read)
                try await onChannel.share(with: clients[4].configuration.clientID, access: .read)
                var members: [Replica] = []
                for index in 1...3 {
                    members.append(
                        Replica(
                            name: ["writer", "reader", "late"][index - 1],
                            client: clients[index],
                            store: stores[index],
                            replicator: Replicator(
                                datastore: stores[index],
                                sharedDatastore: shared,
                                client: clients[index]
                            )
                        )
                    )
                }
                let (writer, reader, late) = (members[0], members[1], members[2])
                let channelReader = Replicator(datastore: stores[4], sharedDatastore: sharedChannel, client: clients[4])

                var generator = SeededGenerator(seed: seed)
                let joins = Int.random(in: 2..<max(steps / 3, 3), using: &generator)
                let revokes = Int.random(in: (steps / 2)..<(3 * steps / 4), using: &generator)
                var ledger = Ledger()
                var keptTags: RevisionTagKey?
                for step in 0..<steps {
                    if step == joins {
                        try await owner.replicator.share(with: late.client.configuration.clientID, access: .readWrite)
                        keptTags = try RevisionTagKey(
                            accessKey: try await late.client.sharedAccessKey(type: shared.type, ownerID: shared.ownerID)
                        )
                    }
                    if step == revokes { try await owner.replicator.revoke(late.client.configuration.clientID) }
                    let revoked = step >= revokes
                    let actors = [owner, writer, reader] + (step >= joins ? [late] : [])
                    let who = Int.random(in: 0...actors.count, using: &generator)
                    if who == actors.count {
                        // The channel's side: the owner pushes the channel, or its reader pulls it.
                        if Bool.random(using: &generator) {
                            try await onChannel.replicate(.push)
                        } else {
                            try await channelReader.replicate(.pull)
                        }
                        continue
                    }
                    let actor = actors[who]
                    let docID = Self.documentIDs.randomElement(using: &generator)!
                    let roll = Int.random(in: 0..<100, using: &generator)
                    let current = try? await actor.store.document(id: docID)
                    var made: String?
                    switch roll {
                    case 0..<45:
                        // Which channel the document is in is the body's `kind`: an edit may move it.
                        let body: [String: JSONValue] = [
                            "kind": .string(Bool.random(using: &generator) ? "public" : "private"),
                            "by": .string(actor.name), "step": .number(Double(step)),
                        ]
                        if let current {
                            made = try await actor.store.update(from: current, body: body).revID
                        } else {
                            made = try? await actor.store.createDocument(id: docID, body: body).revID
                        }
                    case 45..<55:
                        if let current { made = try await actor.store.delete(from: current).revID }
                    default:
                        let direction = [ReplicationDirection.push, .pull, .both].randomElement(using: &generator)!
                        let outcome: Result<ReplicationReport, any Error>
                        do {
                            outcome = .success(try await actor.replicator.replicate(direction))
                        } catch {
                            outcome = .failure(error)
                        }
                        switch (actor.name, outcome) {
                        case (_, .success): break
                        case ("reader", .failure(let error as SyncError)) where error.code == .readOnly:
                            ledger.refusedPushes += 1
                        case ("late", .failure(let error as SyncError)) where revoked && error.code == .accessRevoked:
                            // The revoked member writes straight to the server with the key it kept.
                            if let keptTags {
                                let forged = try RevisionRecord(
                                    docID: docID,
                                    revID: "1-\(String(step, radix: 16))ff",
                                    ancestry: ["1-\(String(step, radix: 16))ff"],
                                    isDeleted: false,
                                    body: #"{"kind":"public","by":"revoked"}"#
                                )
                                _ = try? await late.client.writeRevisions(
                                    type: shared.type,
                                    [Client.RevisionWrite(fields: forged.fields, plain: forged.plain(tags: keptTags))]
                                )
                                ledger.late.append((docID, forged.revID))
                            }
                        case (let name, .failure(let error)):
                            Issue.record("\(label), step \(step): \(name)'s replication failed: \(error)")
                        }
                    }
                    guard let made else { continue }
                    switch actor.name {
                    case "owner", "writer": ledger.acknowledged.append((docID, made))
                    case "reader": ledger.readerEdits.append((docID, made))
                    default: if revoked { ledger.late.append((docID, made)) }
                    }
                }

                // The reader drops its refused edits; then replicate until a whole round moves nothing.
                _ = try await reader.replicator.replicate(.pull)
                let discarded = try await reader.replicator.discardUnpushedRevisions()
                var quiet = false
                for _ in 0..<5 where !quiet {
                    quiet = true
                    for replica in [owner, writer, reader] {
                        let report = try await replica.replicator.replicate()
                        if report.revisionsPushed > 0 || report.revisionsApplied > 0 { quiet = false }
                    }
                }
                #expect(quiet, "\(label): replication did not settle")
                try await onChannel.replicate(.push)
                try await channelReader.replicate(.pull)

                for docID in Self.documentIDs {
                    var views: [String] = []
                    for replica in [owner, writer, reader] {
                        let leaves = (try? await replica.store.leaves(docID: docID)) ?? []
                        let winner = try? await replica.store.document(id: docID)
                        views.append("\(winner?.revID ?? "deleted or absent") \(leaves.map(\.revID).sorted())")
                    }
                    #expect(Set(views).count == 1, "\(label): \(docID) differs: \(views)")
                    // The channel's reader holds no revision of the other channel.
                    for leaf in (try? await stores[4].leaves(docID: docID)) ?? [] where !leaf.isDeleted {
                        #expect(leaf.body["kind"] == "public", "\(label): \(docID) \(leaf.revID) leaked: \(leaf.body)")
                    }
                }
                for (docID, revID) in ledger.acknowledged {
                    for replica in [owner, writer, reader] {
                        #expect(
                            (try? await replica.store.document(id: docID, rev: revID)) != nil,
                            "\(label): \(replica.name) lacks \(docID) \(revID)"
                        )
                    }
                }
                // A deletion's revision ID follows from its parent alone: one the owner or the writer also made is
                // theirs too.
                let theirs = Set(ledger.acknowledged.map { "\($0.docID) \($0.revID)" })
                for (docID, revID) in ledger.readerEdits + ledger.late where !theirs.contains("\(docID) \(revID)") {
                    for (index, store) in [owner.store, writer.store, reader.store, stores[4]].enumerated() {
                        #expect(
                            (try? await store.document(id: docID, rev: revID)) == nil,
                            "\(label): \(docID) \(revID), made where it may not be pushed, reached replica \(index)"
                        )
                    }
                }
                print(
                    "shared convergence: \(label): \(steps) steps, \(ledger.acknowledged.count) revisions, "
                        + "\(ledger.readerEdits.count) refused edits (\(ledger.refusedPushes) refused pushes, "
                        + "\(discarded) discarded), \(ledger.late.count) after the revoke"
                )
                #expect(ledger.late.count > 0 || ledger.readerEdits.count > 0, "\(label): the seed tests no refusal")
                for store in stores { await store.close() }
            }
        }
    }
}
