// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import Synchronization
import Testing

/// Live replication (issue 49): two replicas replicating continuously see each other's edits without being asked,
/// report `idle` between passes, ride out a server that stops and comes back, and stop cleanly when cancelled. Arrival is awaited, never timed: the latencies are printed.
@Suite struct LiveReplicationTests {
    /// The events each replica reported.
    final class EventLog: Sendable {
        private let events = Mutex<[String: [ReplicationEvent]]>([:])

        func append(_ event: ReplicationEvent, by name: String) {
            events.withLock { $0[name, default: []].append(event) }
        }

        func contains(by name: String, _ matches: (ReplicationEvent) -> Bool) -> Bool {
            events.withLock { $0[name, default: []].contains(where: matches) }
        }
    }

    @Test("two live replicas see each other's edits, go idle, ride out a server restart, and stop when cancelled")
    func twoLiveReplicas() async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appending(path: "server-data")
            let arguments = ["--data-directory", data.path, "--registration-token", ReplicatorTests.token]
            let first = try await ServerProcess(arguments: arguments)
            let server = Mutex<ServerProcess?>(first)
            defer { server.withLock { $0?.stop() } }
            do {
                let configuration = try await Client.register(
                    token: ReplicatorTests.token,
                    clientName: "live",
                    apiURL: try #require(URL(string: first.baseURL))
                )
                let (laptop, phone, onLaptop, onPhone) = try await ReplicatorTests.devices(in: folder, configuration)
                let events = EventLog()
                func run(_ replicator: Replicator, _ name: String) -> Task<Void, any Error> {
                    Task {
                        try await replicator.replicateContinuously { event in
                            events.append(event, by: name)
                        }
                    }
                }
                let tasks = [run(onLaptop, "laptop"), run(onPhone, "phone")]
                func hasIdled(_ name: String) -> Bool {
                    events.contains(by: name) { if case .idle = $0 { true } else { false } }
                }
                _ = try await eventually("both idle") { hasIdled("laptop") && hasIdled("phone") }

                _ = try await laptop.createDocument(id: "from-laptop", body: ["n": 1])
                let there = try await eventually("the laptop's edit on the phone") {
                    (try? await phone.document(id: "from-laptop")) != nil
                }
                _ = try await phone.createDocument(id: "from-phone", body: ["n": 2])
                let back = try await eventually("the phone's edit on the laptop") {
                    (try? await laptop.document(id: "from-phone")) != nil
                }
                print("live replication latency: laptop → phone \(there), phone → laptop \(back)")

                // The server stops; an edit waits; the server comes back elsewhere behind the same proxy.
                server.withLock { $0?.stop() }
                _ = try await phone.createDocument(id: "while-away", body: ["n": 3])
                _ = try await eventually("the phone notices the server is away") {
                    events.contains(by: "phone") { if case .offline = $0 { true } else { false } }
                }
                // The same port (the last --port given wins), as a restarted deployment keeps its address.
                let restarted = try await ServerProcess(arguments: arguments + ["--port", String(first.port)])
                server.withLock { $0 = restarted }
                _ = try await eventually("the edit made while away reaches the laptop") {
                    (try? await laptop.document(id: "while-away")) != nil
                }

                for task in tasks { task.cancel() }
                for task in tasks {
                    await #expect(throws: CancellationError.self) { try await task.value }
                }
                for store in [laptop, phone] {
                    #expect(try await store.documentCount() == 3)
                    await store.close()
                }
            }
        }
    }
}
