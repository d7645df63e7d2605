// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
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

    @Test(
        "attaching, compacting and rekeying on a full disk fail with a typed error and change nothing; all work once space returns"
    )
    func maintenanceOnAFullDisk() async throws {
        try await SmallFileSystem.with(bytes: 8 << 20) { mount in
            let directory = mount.appending(path: "stores")
            let oldKey = try DatastoreManagerTests.provider(7)
            let newKey = try DatastoreManagerTests.provider(8)
            let attachment = Array(repeating: UInt8(ascii: "a"), count: 1 << 20)
            let body: [String: JSONValue] = ["n": .string(String(repeating: "v", count: 2_000))]
            do {
                let store = try await DatastoreManager(directory: directory).datastore(
                    named: "full",
                    keyProvider: oldKey
                )
                try await store.bulkWrite((0..<200).map { .create(id: "doc-\($0)", body: body) })
                // Old revisions whose bodies compaction would remove.
                for number in 0..<50 {
                    let current = try await store.document(id: "doc-\(number)")
                    try await store.update(from: current, body: ["n": .string("updated")])
                }
                SmallFileSystem.fill(mount)
                let target = try await store.document(id: "doc-0")
                await #expect(throws: DatastoreError.self, "attaching on a full disk") {
                    try await store.addAttachment(
                        named: "a",
                        contentType: "application/octet-stream",
                        to: target,
                        contents: AttachmentTests.chunks(attachment)
                    )
                }
                await #expect(throws: DatastoreError.self, "rekeying on a full disk") {
                    try await store.rekey(to: newKey)
                }
                // Compaction may have room to finish (it frees space); if it cannot, it must say so and change nothing.
                do { _ = try await store.compact() } catch {}
                #expect(try await store.document(id: "doc-0").attachments.isEmpty, "nothing half-attached is visible")
                await store.close()
            }
            try FileManager.default.removeItem(at: mount.appending(path: "filler"))

            let manager = try DatastoreManager(directory: directory)
            let reopened = try await manager.datastore(named: "full", keyProvider: oldKey)
            #expect(try await reopened.integrityCheck().isEmpty)
            #expect(try await reopened.documentCount() == 200)
            #expect(try await reopened.document(id: "doc-0").body["n"] == .string("updated"))
            #expect(try await reopened.document(id: "doc-199").body == body)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/full/attachments")
            #expect(files.isEmpty, "a refused attachment leaves no file: \(files)")
            let attached = try await reopened.addAttachment(
                named: "a",
                contentType: "application/octet-stream",
                to: try await reopened.document(id: "doc-0"),
                contents: AttachmentTests.chunks(attachment)
            )
            #expect(attached.attachments["a"]?.length == Int64(attachment.count))
            _ = try await reopened.compact()
            try await reopened.rekey(to: newKey)
            await reopened.close()
            let rekeyed = try await manager.datastore(named: "full", keyProvider: newKey)
            #expect(try await rekeyed.integrityCheck().isEmpty)
            #expect(try await rekeyed.documentCount() == 200)
            await rekeyed.close()
        }
    }
}
