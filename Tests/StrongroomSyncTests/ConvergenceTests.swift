// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import Synchronization
import Testing

/// Replication proof 1 (issue 48), seeded: three replicas of one client's datastore create, update and delete
/// documents and add attachments at random and replicate in random directions through a proxy that cuts the network after the server
/// has acted (the client never hears its answer). At the end every replica has the same winner and the same leaves
/// for every document, every revision a replica acknowledged is on every replica, and a repeat moves nothing.
///
/// CI runs `STRONGROOM_SYNC_SEEDS` seeds (default 3) of `STRONGROOM_SYNC_OPERATIONS` steps (default 150) from
/// `STRONGROOM_SYNC_SEED` (default 1); `Scripts/sync-convergence.sh` runs many more. A failure names its seed.
@Suite struct ConvergenceTests {
    static let token = "convergence-token"
    static let documentIDs = (0..<12).map { "doc-\($0)" }

    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.map { min(max($0, 1), 1_000_000) } ?? fallback
    }

    /// The network between the replicas and the server: cuts a seeded share of replication requests after the
    /// server has answered them.
    final class Network: Sendable {
        struct State {
            var generator: SeededGenerator
            var cutting = true
            var cuts = 0
        }
        let state: Mutex<State>

        init(seed: UInt64) { state = Mutex(State(generator: SeededGenerator(seed: seed ^ 0x6e65_7477_6f72_6b))) }

        var tamper: HostileServer.Tamper {
            { [self] path, _, response in
                let replicating =
                    path == "/v1/storage/search" || path.hasPrefix("/v2/sync/") || path.hasPrefix("/v1/storage/records")
                let cut = state.withLock { state -> Bool in
                    guard state.cutting, replicating, Int.random(in: 0..<100, using: &state.generator) < 12 else {
                        return false
                    }
                    state.cuts += 1
                    return true
                }
                return cut ? .cut : .answer(response)
            }
        }
    }

    @Test(
        "three replicas converge through seeded edits, replications and network cuts",
        arguments: TestEngine.available
    )
    func seeded(engine: TestEngine) async throws {
        let first = UInt64(Self.setting("STRONGROOM_SYNC_SEED", 1))
        for seed in first..<(first + UInt64(Self.setting("STRONGROOM_SYNC_SEEDS", 3))) {
            try await run(engine: engine, seed: seed, steps: Self.setting("STRONGROOM_SYNC_OPERATIONS", 150))
        }
    }

    func run(engine: TestEngine, seed: UInt64, steps: Int) async throws {
        let label = "STRONGROOM_SYNC_SEED=\(seed) STRONGROOM_SYNC_SEEDS=1 (\(engine))"
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "replicas", apiURL: url)
            let network = Network(seed: seed)
            try await HostileServer.with(upstream: url, tamper: network.tamper) { proxy in
                try await withTemporaryDirectory { folder in
                    var through = configuration
                    through.apiURL = proxy
                    var replicas: [(store: Datastore, replicator: Replicator)] = []
                    for index in 0..<3 {
                        let store = try await DatastoreManager(directory: folder.appending(path: "replica-\(index)"))
                            .datastore(named: "shared", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                        replicas.append(
                            (
                                store,
                                Replicator(datastore: store, name: "shared", client: Client(configuration: through))
                            )
                        )
                    }
                    var generator = SeededGenerator(seed: seed)
                    var acknowledged: [(docID: String, revID: String)] = []
                    for step in 0..<steps {
                        let (store, replicator) = replicas[Int.random(in: 0..<3, using: &generator)]
                        let docID = Self.documentIDs.randomElement(using: &generator)!
                        let roll = Int.random(in: 0..<100, using: &generator)
                        let current = try? await store.document(id: docID)
                        switch roll {
                        case 0..<45:
                            let body: [String: JSONValue] = [
                                "step": .number(Double(step)), "seed": .number(Double(seed)),
                            ]
                            if let current {
                                acknowledged.append((docID, try await store.update(from: current, body: body).revID))
                            } else if let created = try? await store.createDocument(id: docID, body: body) {
                                acknowledged.append((docID, created.revID))
                            }
                        case 45..<55:
                            if let current { acknowledged.append((docID, try await store.delete(from: current).revID)) }
                        case 55..<65:
                            // An attachment added or replaced: a few names, a few bodies (so some are shared).
                            if let current {
                                let body = Array("body \(Int.random(in: 0..<4, using: &generator))".utf8)
                                let attached = try await store.addAttachment(
                                    named: "file-\(Int.random(in: 0..<2, using: &generator))",
                                    contentType: "text/plain",
                                    to: current,
                                    contents: AsyncStream {
                                        $0.yield(body); $0.finish()
                                    }
                                )
                                acknowledged.append((docID, attached.revID))
                            }
                        default:
                            let direction = [ReplicationDirection.push, .pull, .both].randomElement(using: &generator)!
                            do {
                                try await replicator.replicate(direction)
                            } catch let error as SyncError {
                                Issue.record(
                                    "\(label), step \(step): the replicator refused an honest server: \(error)"
                                )
                            } catch {
                                // A cut: the next replication picks up where this one stopped.
                            }
                        }
                    }
                    network.state.withLock { $0.cutting = false }

                    // Replicate until a whole round moves nothing (three rounds always suffice for three replicas).
                    var quiet = false
                    for _ in 0..<4 where !quiet {
                        quiet = true
                        for (_, replicator) in replicas {
                            let report = try await replicator.replicate()
                            if report.revisionsPushed > 0 || report.revisionsApplied > 0 { quiet = false }
                        }
                    }
                    #expect(quiet, "\(label): replication did not settle")
                    for docID in Self.documentIDs {
                        var views: [String] = []
                        for (store, _) in replicas {
                            let leaves = (try? await store.leaves(docID: docID)) ?? []
                            let winner = try? await store.document(id: docID)
                            let files =
                                (winner?.attachments.values.map { "\($0.name)=\($0.digest)@\($0.revpos)" } ?? [])
                                .sorted()
                            views.append(
                                "\(winner?.revID ?? "deleted or absent") \(files) \(leaves.map(\.revID).sorted())"
                            )
                        }
                        #expect(Set(views).count == 1, "\(label): \(docID) differs: \(views)")
                    }
                    for (docID, revID) in acknowledged {
                        for (index, replica) in replicas.enumerated() {
                            #expect(
                                (try? await replica.store.document(id: docID, rev: revID)) != nil,
                                "\(label): replica \(index) lost \(docID) \(revID)"
                            )
                        }
                    }
                    let cuts = network.state.withLock { $0.cuts }
                    print("convergence: \(label): \(steps) steps, \(acknowledged.count) revisions, \(cuts) cuts")
                    #expect(cuts > 0, "\(label): no cut happened; the seed tests nothing the plain tests do not")
                    for (store, _) in replicas { await store.close() }
                }
            }
        }
    }
}
