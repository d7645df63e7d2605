// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// The changes feed: one entry per document at its latest change, with leaves and deletion, paged by sequence;
/// and a stream that follows new commits.
@Suite struct ChangesTests {
    @Test(
        "changes since a sequence: one per document, latest first seen last, leaves and deletions",
        arguments: StoreKind.allCases
    )
    func feed(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            let a = try await store.createDocument(id: "a", body: ["v": .number(1)])
            let b = try await store.createDocument(id: "b", body: [:])
            let c = try await store.createDocument(id: "c", body: [:])
            let a2 = try await store.update(from: a, body: ["v": .number(2)])
            let bDeleted = try await store.delete(from: b)
            let cBranch = try await store.forceInsert(
                docID: "c",
                history: ["2-ffffffffffffffffffffffffffffffff", "1-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"],  // a second root
                body: ["remote": .bool(true)]
            )

            let all = try await store.changes()
            #expect(all.changes.map(\.docID) == ["a", "b", "c"])
            #expect(all.changes[0].revID == a2.revID && all.changes[0].sequence == a2.sequence)
            #expect(all.changes[1].isDeleted && all.changes[1].revID == bDeleted.revID)
            #expect(Set(all.changes[2].leafRevIDs) == [c.revID, cBranch.revID])
            #expect(all.lastSequence == cBranch.sequence)

            let first = try await store.changes(since: 0, limit: 2)
            #expect(first.changes.map(\.docID) == ["a", "b"])
            let rest = try await store.changes(since: first.lastSequence, limit: 2)
            #expect(rest.changes.map(\.docID) == ["c"])
            let none = try await store.changes(since: rest.lastSequence)
            #expect(none.changes.isEmpty && none.lastSequence == rest.lastSequence)

            let negative = await #expect(throws: DatastoreError.self) { try await store.changes(since: -1) }
            #expect(negative?.code == .invalidArgument)
        }
    }

    @Test(
        "a stream delivers the backlog, then each new commit without waiting for a poll",
        arguments: StoreKind.allCases
    )
    func stream(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await store.createDocument(id: "before", body: [:])
            let stream = store.changeStream(since: 0, pollInterval: .seconds(600))
            let received = try await withThrowingTaskGroup(of: [String].self) { group in
                group.addTask {
                    var seen: [String] = []
                    for try await change in stream {
                        seen.append(change.docID)
                        if seen.count == 3 { break }
                    }
                    return seen
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(50))
                    try await store.createDocument(id: "during-1", body: [:])
                    try await store.createDocument(id: "during-2", body: [:])
                    return []
                }
                group.addTask {
                    // A hang fails the test instead of stalling CI; ten minutes, so that a loaded machine is not a hang
                    // (one CI run took over a minute here with every suite running at once on two cores).
                    try await Task.sleep(for: .seconds(600))
                    throw CancellationError()
                }
                var result: [String] = []
                for try await seen in group where !seen.isEmpty {
                    result = seen
                    break
                }
                group.cancelAll()
                return result
            }
            #expect(received == ["before", "during-1", "during-2"])
        }
    }
}
