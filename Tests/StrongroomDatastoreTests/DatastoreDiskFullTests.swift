// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomDatastore
import StrongroomTesting
import StrongroomWire
import Testing

/// A full disk during datastore writes (issue 45, item 5): a write that cannot be made durable fails with a typed
/// error; once space returns the datastore opens, passes its integrity check and holds every acknowledged write.
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a small file system needs root (CI has it)"))
struct DatastoreDiskFullTests {
    @Test(
        "inserts on a full disk fail with a typed error; after space returns nothing acknowledged is lost",
        arguments: [true, false]
    )
    func diskFull(encrypted: Bool) async throws {
        try await SmallFileSystem.with(bytes: 8 << 20) { mount in
            let directory = mount.appending(path: "stores")
            func open() async throws -> Datastore {
                let manager = try DatastoreManager(directory: directory)
                return encrypted
                    ? try await manager.datastore(named: "full", keyProvider: try DatastoreManagerTests.provider(7))
                    : try manager.datastore(named: "full")
            }
            var acknowledged: [String: String] = [:]
            do {
                let store = try await open()
                for number in 0..<50 {
                    let id = "doc-\(number)"
                    try await store.createDocument(id: id, body: ["n": .string(String(repeating: "v", count: 500))])
                    acknowledged[id] = String(repeating: "v", count: 500)
                }
                SmallFileSystem.fill(mount)
                var refused: [DatastoreError.Code] = []
                for number in 50..<400 {
                    let id = "doc-\(number)"
                    let body = String(repeating: "w", count: 2_000)
                    do {
                        try await store.createDocument(id: id, body: ["n": .string(body)])
                        acknowledged[id] = body
                    } catch let error as DatastoreError {
                        refused.append(error.code)
                    }
                }
                #expect(!refused.isEmpty, "the disk was full")
                #expect(refused.allSatisfy { $0 == .storage || $0 == .busy }, "\(Set(refused.map(\.description)))")
            }
            try FileManager.default.removeItem(at: mount.appending(path: "filler"))

            let reopened = try await open()
            #expect(try await reopened.integrityCheck().isEmpty)
            for (id, value) in acknowledged {
                let revision = try await reopened.document(id: id)
                #expect(revision.body["n"] == .string(value), "\(id)")
            }
            try await reopened.createDocument(id: "after", body: ["n": .string("after")])
        }
    }
}
