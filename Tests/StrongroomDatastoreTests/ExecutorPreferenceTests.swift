// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomDatastore

/// `withExecutorPreference`: the caller's code runs as jobs of the datastore's serial queue, calls run in place
/// there, and the datastore stays serial for every other task.
@Suite struct ExecutorPreferenceTests {
    @Test(
        "inside the preference the task runs on the datastore's queue, before and after its calls; outside it does not"
    )
    func placement() async throws {
        try await withDatastore(.encrypted) { store, _ in
            #expect(!store.executor.isCurrent)
            let inside = try await store.withExecutorPreference {
                let before = store.executor.isCurrent
                let created = try await store.createDocument(id: "a", body: ["n": 1])
                let read = try await store.document(id: "a")
                return (before, store.executor.isCurrent, created.revID == read.revID)
            }
            #expect(inside == (true, true, true))
            #expect(!store.executor.isCurrent)
            // A concurrent executor has no queue to prefer.
            #expect(BlockingExecutor.shared.taskExecutor == nil)
            #expect(!BlockingExecutor.shared.isCurrent)
        }
    }

    @Test("a task preferring the queue and tasks that do not interleave without losing or mixing a write")
    func interleaving() async throws {
        try await withDatastore(.encrypted) { store, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await store.withExecutorPreference {
                        for index in 0..<200 {
                            try await store.createDocument(id: "in-\(index)", body: ["i": .number(Double(index))])
                        }
                    }
                }
                for writer in 0..<2 {
                    group.addTask {
                        for index in 0..<100 {
                            try await store.createDocument(
                                id: "out-\(writer)-\(index)",
                                body: ["i": .number(Double(index))]
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.documentCount() == 400)
            let changes = try await store.changes(since: 0, limit: 1000).changes
            #expect(changes.count == 400)
            #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
            // Read back inside the preference, one at a time: the same bodies as outside.
            let inside = try await store.withExecutorPreference {
                var bodies: [[String: JSONValue]] = []
                for index in 0..<200 { bodies.append(try await store.document(id: "in-\(index)").body) }
                return bodies
            }
            #expect(inside == (0..<200).map { ["i": .number(Double($0))] })
        }
    }

    @Test("another datastore's calls inside the preference hand off to their own queue, and errors are the same")
    func otherStoresAndErrors() async throws {
        try await withDatastore(.encrypted) { store, manager in
            let other = try await StoreKind.encrypted.open(manager, "other")
            try await store.withExecutorPreference {
                try await other.createDocument(id: "x", body: ["v": true])
                #expect(!other.executor.isCurrent)
                #expect(store.executor.isCurrent)
                let missing = await #expect(throws: DatastoreError.self) { try await store.document(id: "nope") }
                #expect(missing?.code == .notFound)
            }
            #expect(try await other.document(id: "x").body == ["v": true])
            await other.close()
            let closed = await #expect(throws: DatastoreError.self) {
                try await other.withExecutorPreference { try await other.documentCount() }
            }
            #expect(closed?.code == .closed)
        }
    }
}
