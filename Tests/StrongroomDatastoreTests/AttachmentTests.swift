// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomSQLite
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomDatastore

/// Attachments: streamed in and out, carried forward, removed; a flipped byte, a cut, an extra chunk or a file
/// moved to another document is `tampered` with nothing more returned; orphaned files go at compaction.
@Suite struct AttachmentTests {
    /// 200 KiB with the canary repeated through it, delivered in uneven chunks.
    static let content: [UInt8] = {
        var bytes = Array(repeating: Array(Canary.value.utf8), count: 200 * 1024 / Canary.value.utf8.count).flatMap {
            $0
        }
        bytes += Array(0..<200).map { UInt8($0) }
        return bytes
    }()

    static func chunks(_ bytes: [UInt8], size: Int = 10_007) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(Array(bytes[start..<min(start + size, bytes.count)]))
            }
            continuation.finish()
        }
    }

    static func readAll(_ store: Datastore, _ name: String, of revision: DocumentRevision) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in store.attachmentContents(named: name, of: revision) { bytes += chunk }
        return bytes
    }

    static func folder(_ manager: DatastoreManager) -> URL { manager.directory.appending(path: "docs/attachments") }

    static func files(_ manager: DatastoreManager) throws -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder(manager).path))?.sorted() ?? []
    }

    @Test(
        "add, read as a stream and to a file, carry forward, remove; metadata and revision IDs",
        arguments: StoreKind.allCases
    )
    func lifecycle(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            let created = try await store.createDocument(id: Canary.docID, body: Canary.body)
            let attached = try await store.addAttachment(
                named: "report.bin",
                contentType: "application/octet-stream",
                to: created,
                contents: Self.chunks(Self.content)
            )
            #expect(attached.generation == 2 && attached.body == created.body)
            let attachment = try #require(attached.attachments["report.bin"])
            #expect(attachment.length == Int64(Self.content.count) && attachment.revpos == 2)
            #expect(attachment.digest.hasPrefix("sha256-"))
            #expect(try await Self.readAll(store, "report.bin", of: attached) == Self.content)
            #expect(try await store.document(id: Canary.docID).attachments == attached.attachments)

            let empty = try await store.addAttachment(
                named: "empty",
                contentType: "text/plain",
                to: attached,
                contents: Self.chunks([])
            )
            #expect(try await Self.readAll(store, "empty", of: empty).isEmpty)

            // Carried forward by an ordinary update, unchanged.
            let updated = try await store.update(from: empty, body: ["v": .number(2)])
            #expect(updated.attachments == empty.attachments)
            #expect(try await Self.readAll(store, "report.bin", of: updated) == Self.content)

            let copy = manager.directory.appending(path: "copy.bin")
            try await store.readAttachment(named: "report.bin", of: updated, to: copy)
            #expect(try Array(Data(contentsOf: copy)) == Self.content)
            let exists = await #expect(throws: DatastoreError.self) {
                try await store.readAttachment(named: "report.bin", of: updated, to: copy)
            }
            #expect(exists?.code == .invalidArgument)
            try FileManager.default.removeItem(at: copy)

            let removed = try await store.removeAttachment(named: "report.bin", from: updated)
            #expect(removed.attachments.keys.sorted() == ["empty"])
            let gone = await #expect(throws: DatastoreError.self) {
                try await store.removeAttachment(named: "report.bin", from: removed)
            }
            #expect(gone?.code == .notFound)
            // The old revision still has it until compaction.
            #expect(try await Self.readAll(store, "report.bin", of: updated) == Self.content)
            let stale = await #expect(throws: DatastoreError.self) {
                try await store.addAttachment(
                    named: "x",
                    contentType: "text/plain",
                    to: updated,
                    contents: Self.chunks([1])
                )
            }
            #expect(stale?.code == .conflict)
            let tombstone = try await store.delete(from: removed)
            #expect(tombstone.attachments.isEmpty)

            try await store.compact()
            #expect(try Self.files(manager).count == 0)  // every attachment belonged to a non-leaf revision
        }
    }

    @Test(
        "a flipped byte, a cut, extra bytes or a file moved to another document is tampered",
        arguments: StoreKind.allCases
    )
    func tampering(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            let a = try await store.addAttachment(
                named: "a.bin",
                contentType: "application/octet-stream",
                to: try await store.createDocument(id: "a", body: [:]),
                contents: Self.chunks(Self.content)
            )
            let fileOfA = try #require(try Self.files(manager).first)
            let b = try await store.addAttachment(
                named: "a.bin",
                contentType: "application/octet-stream",
                to: try await store.createDocument(id: "b", body: [:]),
                contents: Self.chunks(Self.content.reversed())
            )
            let files = try AttachmentTests.files(manager)
            #expect(files.count == 2)
            let url = Self.folder(manager).appending(path: fileOfA)
            let original = try Data(contentsOf: url)
            let edits: [(String, Data)] = [
                (
                    "flipped",
                    {
                        var d = original; d[d.count - 20] ^= 0x80; return d
                    }()
                ),
                ("cut", original.prefix(original.count - 1000)),
                ("extended", original + Data(repeating: 7, count: 100)),
                ("moved", try Data(contentsOf: Self.folder(manager).appending(path: files.first { $0 != fileOfA }!))),
            ]
            for (label, edited) in edits {
                try edited.write(to: url)
                let error = await #expect(throws: DatastoreError.self, "\(label)") {
                    _ = try await Self.readAll(store, "a.bin", of: a)
                }
                #expect(error?.code == .tampered, "\(label)")
                let destination = manager.directory.appending(path: "out-\(label)")
                let toFile = await #expect(throws: DatastoreError.self) {
                    try await store.readAttachment(named: "a.bin", of: a, to: destination)
                }
                #expect(toFile?.code == .tampered)
                #expect(!FileManager.default.fileExists(atPath: destination.path), "no partial output: \(label)")
            }
            try original.write(to: url)
            #expect(try await Self.readAll(store, "a.bin", of: a) == Self.content)
            #expect(try await Self.readAll(store, "a.bin", of: b) == Self.content.reversed())
        }
    }

    @Test(
        "a write that never committed leaves nothing visible, and compaction removes its file",
        arguments: StoreKind.allCases
    )
    func orphans(kind: StoreKind) async throws {
        let limits = DatastoreLimits(maximumAttachmentBytes: 100_000)
        try await withDatastore(kind, limits: limits) { store, manager in
            let doc = try await store.createDocument(id: "d", body: [:])
            let kept = try await store.addAttachment(
                named: "kept",
                contentType: "text/plain",
                to: doc,
                contents: Self.chunks([1, 2, 3])
            )
            // Too large: refused, and its file is gone at once.
            let tooLarge = await #expect(throws: DatastoreError.self) {
                try await store.addAttachment(
                    named: "big",
                    contentType: "text/plain",
                    to: kept,
                    contents: Self.chunks(Self.content)
                )
            }
            #expect(tooLarge?.code == .documentTooLarge)
            #expect(try Self.files(manager).count == 1)
            // What a crash leaves: a synced body never renamed (.partial) and one renamed but never committed.
            let folder = Self.folder(manager)
            try Data(Canary.value.utf8).write(to: folder.appending(path: "0123456789abcdef0123456789abcdef.partial"))
            try Data(Canary.value.utf8).write(to: folder.appending(path: "fedcba9876543210fedcba9876543210"))
            #expect(try await store.document(id: "d").attachments.keys.sorted() == ["kept"])
            try await store.compact()
            #expect(try Self.files(manager).count == 1)
            #expect(try await Self.readAll(store, "kept", of: kept) == [1, 2, 3])
            // A record naming a file outside the folder (an edited database) is not followed.
            try await store.withConnection { connection throws(DatastoreError) in
                do throws(SQLiteError) {
                    try connection.execute("UPDATE attachments SET file = '../../db.sqlite' WHERE name = 'kept'")
                } catch {
                    throw DatastoreError(storage: error)
                }
            }
            let escaped = await #expect(throws: DatastoreError.self) {
                _ = try await Self.readAll(store, "kept", of: kept)
            }
            #expect(escaped?.code == .tampered)
            let bad = await #expect(throws: DatastoreError.self) {
                try await store.addAttachment(
                    named: "",
                    contentType: "text/plain",
                    to: kept,
                    contents: Self.chunks([1])
                )
            }
            #expect(bad?.code == .invalidArgument)
        }
    }

    @Test(
        "a cancelled add is not committed with what arrived: it fails as cancelled and leaves no file",
        arguments: StoreKind.allCases
    )
    func cancelledAdd(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            let doc = try await store.createDocument(id: "d", body: ["n": 1])
            // Two chunks arrive, then the sender stalls for good: the stream ends only because the task is cancelled.
            let (contents, sender) = AsyncStream.makeStream(of: [UInt8].self)
            sender.yield(Array(Self.content.prefix(70_000)))
            sender.yield(Array(Self.content.dropFirst(70_000).prefix(70_000)))
            let adding = Task {
                try await store.addAttachment(named: "cut", contentType: "text/plain", to: doc, contents: contents)
            }
            adding.cancel()
            let error = await #expect(throws: DatastoreError.self) { try await adding.value }
            #expect(error?.code == .cancelled)
            sender.finish()
            let current = try await store.document(id: "d")
            #expect(current.revID == doc.revID)
            #expect(current.attachments.isEmpty)
            #expect(try Self.files(manager).isEmpty)
        }
    }

    /// Thrown by a sender part-way through an attachment.
    struct SenderFailed: Error {}

    @Test(
        "a failure several batches into a long attachment (the sender's error, the size limit) waits for the batches in flight and leaves no file",
        arguments: StoreKind.allCases
    )
    func failureInPipeline(kind: StoreKind) async throws {
        // 5 MiB and a bit: several 1 MiB batches are hashed, sealed and written at once when the failure comes.
        let long = Array(repeating: Self.content, count: 26).flatMap { $0 }
        let limits = DatastoreLimits(maximumAttachmentBytes: Int64(long.count - 1))
        try await withDatastore(kind, limits: limits) { store, manager in
            let doc = try await store.createDocument(id: "d", body: [:])
            let failing = AsyncThrowingStream<[UInt8], any Error> { continuation in
                for start in stride(from: 0, to: long.count - 65_536, by: 65_536) {
                    continuation.yield(Array(long[start..<start + 65_536]))
                }
                continuation.finish(throwing: SenderFailed())
            }
            let thrown = await #expect(throws: DatastoreError.self) {
                try await store.addAttachment(named: "a", contentType: "text/plain", to: doc, contents: failing)
            }
            #expect(thrown?.code == .storage)
            #expect(try Self.files(manager).isEmpty)
            // One byte over the limit: the last batch's seal refuses it while the one before is being written.
            let tooLarge = await #expect(throws: DatastoreError.self) {
                try await store.addAttachment(
                    named: "a",
                    contentType: "text/plain",
                    to: doc,
                    contents: Self.chunks(long, size: 65_536)
                )
            }
            #expect(tooLarge?.code == .documentTooLarge)
            #expect(try Self.files(manager).isEmpty)
            #expect(try await store.document(id: "d").attachments.isEmpty)
            // The same bytes within the limit round-trip.
            let kept = try await store.addAttachment(
                named: "a",
                contentType: "text/plain",
                to: doc,
                contents: Self.chunks(Array(long.dropLast()), size: 65_536)
            )
            #expect(try await Self.readAll(store, "a", of: kept) == Array(long.dropLast()))
            #expect(try Self.files(manager).count == 1)
        }
    }
}

/// The attachment file format, read by PyNaCl: proof that the format is libsodium's secretstream as documented.
@Suite struct AttachmentFormatTests {
    @Test("sizes on and around the 64 KiB chunk and 1 MiB batch boundaries round-trip", arguments: StoreKind.allCases)
    func boundaries(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, manager in
            var revision = try await store.createDocument(id: "sizes", body: [:])
            let chunk = 65_536
            let cases: [(size: Int, piece: Int)] = [
                (1, 1), (chunk - 1, 4096), (chunk, chunk), (chunk + 1, chunk), (2 * chunk, 7), (2 * chunk, 2 * chunk),
                ((1 << 20) + chunk + 3, (1 << 20) + 1), (3 * chunk, 3 * chunk + 5),
            ]
            for (index, test) in cases.enumerated() {
                let bytes = (0..<test.size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ index) }
                revision = try await store.addAttachment(
                    named: "a\(index)",
                    contentType: "application/octet-stream",
                    to: revision,
                    contents: AttachmentTests.chunks(bytes, size: test.piece)
                )
                let read = try await AttachmentTests.readAll(store, "a\(index)", of: revision)
                #expect(read == bytes, "size \(test.size)")
                guard kind == .encrypted, let attachment = revision.attachments["a\(index)"] else { continue }
                // magic ‖ header ‖ ⌈size / 64 KiB⌉ chunks (at least one), each with 17 bytes of overhead.
                let sealedChunks = max(1, (test.size + chunk - 1) / chunk)
                let expected = 4 + 24 + test.size + 17 * sealedChunks
                let folder = AttachmentTests.folder(manager)
                let sizes = try AttachmentTests.files(manager).map { name in
                    let path = folder.appending(path: name).path
                    return try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                }
                #expect(sizes.contains(expected), "size \(test.size): \(attachment.length)")
            }
        }
    }

    @Test("PyNaCl opens an attachment file with the documented key and associated data")
    func pynacl() async throws {
        guard PythonSDK.isAvailableOrRequired else { return }
        try await withDatastore(.encrypted) { store, manager in
            let revision = try await store.addAttachment(
                named: "report.bin",
                contentType: "application/octet-stream",
                to: try await store.createDocument(id: Canary.docID, body: [:]),
                contents: AttachmentTests.chunks(AttachmentTests.content)
            )
            let (keyHex, datastoreID) = try await store.withConnection { connection throws(DatastoreError) in
                do throws(SQLiteError) {
                    let key = try Schema.attachmentKey(connection)
                    let id = try connection.scalarText("SELECT value FROM info WHERE key = 'datastore_id'") ?? ""
                    return (key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }, id)
                } catch {
                    throw DatastoreError(storage: error)
                }
            }
            let aad = AttachmentFile.associatedData(
                datastoreID: datastoreID,
                docID: Canary.docID,
                name: "report.bin",
                revpos: 2
            )
            let file = try #require(try AttachmentTests.files(manager).first)
            let outcome = try await PythonSDK.run([
                PythonSDK.path("Tests/StrongroomDatastoreTests/Vectors/open-attachment.py"),
                keyHex,
                aad.map { String(format: "%02x", $0) }.joined(),
                AttachmentTests.folder(manager).appending(path: file).path,
            ])
            #expect(outcome.status == 0, "\(outcome.output)")
            let expected = SHA256.hash(data: AttachmentTests.content).map { String(format: "%02x", $0) }.joined()
            #expect(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
            #expect(revision.attachments["report.bin"]?.revpos == 2)
        }
    }
}
