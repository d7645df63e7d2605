// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomServerTesting
import StrongroomSync
import StrongroomTesting
import Synchronization
import Testing

/// Replication slice 3 (docs/design/Replication.md): two devices of one client — two datastores with different local
/// keys — edit offline, replicate through a real server, and converge with their conflicts kept.
@Suite struct ReplicatorTests {
    static let token = "sync-test-token"

    @Test(
        "two devices converge: creates, updates, deletes, a concurrent edit kept as a conflict, nothing twice",
        arguments: TestEngine.available
    )
    func twoDevices(engine: TestEngine) async throws {
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "devices", apiURL: url)
            try await withTemporaryDirectory { folder in
                let (laptop, phone, onLaptop, onPhone) = try await Self.devices(in: folder, configuration)

                // Offline on the laptop: a document updated twice, one deleted.
                let first = try await laptop.createDocument(id: "first", body: ["title": "draft"])
                let second = try await laptop.update(from: first, body: ["title": "final", "tags": ["a", "b"]])
                let gone = try await laptop.createDocument(id: "gone", body: ["x": 1])
                _ = try await laptop.delete(from: gone)
                let pushed = try await onLaptop.replicate(.push)
                #expect(pushed.revisionsPushed == 2)  // the two leaves: first's winner and gone's tombstone
                #expect(pushed.documentsPushed == 2)

                // As an AsyncSequence of events (CDTDatastore's replicator delegate): a page applied, then completed.
                var events: [ReplicationEvent] = []
                for try await event in onPhone.events() { events.append(event) }
                guard case .completed(let pulled)? = events.last, case .pulled(let page)? = events.dropLast().last
                else {
                    Issue.record("events: \(events)")
                    return
                }
                #expect(pulled.revisionsPulled == 2 && pulled.revisionsApplied == 2 && page.revisionsApplied == 2)
                #expect(pulled.bytesPulled > 0 && pulled.duration > .zero)
                let copy = try await phone.document(id: "first")
                #expect(copy.revID == second.revID && copy.body == second.body)
                #expect(try await phone.revisionHistory(of: copy).map(\.revID) == [second.revID, first.revID])
                #expect(try await phone.leaves(docID: "gone").first?.isDeleted == true)

                // Both edit the same revision while apart: after both replicate, both keep both leaves and agree.
                _ = try await laptop.update(from: second, body: ["title": "laptop's"])
                _ = try await phone.update(from: copy, body: ["title": "phone's"])
                _ = try await onLaptop.replicate()
                let phoneSees = try await onPhone.replicate()
                let laptopSees = try await onLaptop.replicate()
                for report in [phoneSees, laptopSees] {
                    #expect(report.conflictsCreated == 1 && report.documentsPulled == 1, "\(report)")
                }
                let laptopLeaves = try await laptop.leaves(docID: "first").map(\.revID)
                let phoneLeaves = try await phone.leaves(docID: "first").map(\.revID)
                #expect(laptopLeaves.count == 2 && laptopLeaves == phoneLeaves)
                #expect(try await laptop.document(id: "first").body == (try await phone.document(id: "first").body))
                #expect(try await laptop.conflictedDocumentIDs() == ["first"])
                #expect(try await phone.conflictedDocumentIDs() == ["first"])

                // Nothing left to do: a repeat sends and applies nothing.
                let again = try await onLaptop.replicate()
                let phoneAgain = try await onPhone.replicate()
                #expect(again.revisionsPushed == 0 && again.revisionsApplied == 0, "\(again)")
                #expect(phoneAgain.revisionsPushed == 0 && phoneAgain.revisionsApplied == 0, "\(phoneAgain)")
                await laptop.close()
                await phone.close()
            }
        }
    }

    @Test(
        "the server's database (SQLite with its WAL, or a PostgreSQL dump) holds no document ID, revision ID, field name, value or datastore name",
        arguments: TestEngine.available
    )
    func noPlaintextOnTheServer(engine: TestEngine) async throws {
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", Self.token]) {
            server,
            storage in
            let url = try #require(URL(string: server.baseURL))
            let data = URL(fileURLWithPath: try #require(storage.last(after: "--data-directory")))
            let configuration = try await Client.register(token: Self.token, clientName: "canary", apiURL: url)
            try await withTemporaryDirectory { folder in
                let store = try await DatastoreManager(directory: folder.appending(path: "device"))
                    .datastore(named: "canarystore", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let created = try await store.createDocument(
                    id: "canary-document-id",
                    body: ["canary_field_name": "canary-field-value-7f3a", "n": 424242]
                )
                _ = try await store.update(from: created, body: ["canary_field_name": "canary-second-value-9b1c"])
                let replicator = Replicator(
                    datastore: store,
                    name: "canary-datastore-name",
                    client: Client(configuration: configuration)
                )
                #expect(try await replicator.replicate(.push).revisionsPushed == 1)
                if let database = storage.last(after: "--database-url") {
                    // PostgreSQL: a full dump of the database, written into the data directory to be scanned with it.
                    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                    let dump = data.appending(path: "postgres.dump.sql")
                    let outcome = try await ExternalProcess.run(
                        URL(fileURLWithPath: "/usr/bin/pg_dump"),
                        arguments: [database, "--file", dump.path]
                    )
                    #expect(outcome.status == 0, "\(outcome.output)")
                    #expect(try String(contentsOf: dump, encoding: .utf8).contains("sync_tag"))
                }
                let needles = [
                    "canary-document-id", "canary_field_name", "canary-field-value-7f3a", "canary-second-value-9b1c",
                    "424242", "canary-datastore-name", created.revID,
                ]
                let findings = try PlaintextScan.scan(data, for: needles.map { Data($0.utf8) })
                #expect(findings.isEmpty, "plaintext on the server: \(findings)")
                await store.close()
            }
        }
    }

    @Test(
        "a server restored from an older backup is noticed: both devices start over, and nothing the backup lost stays lost"
    )
    func serverRestoredFromBackup() async throws {
        try await withTemporaryDirectory { folder in
            let (live, backup) = (folder.appending(path: "data"), folder.appending(path: "backup"))
            let servers = ServerSlot()
            defer { servers.stop() }
            try await servers.start(live)
            let upstream = HostileServer.Upstream(try servers.url())
            try await HostileServer.with(upstream: upstream, tamper: { _, _, response in .answer(response) }) { proxy in
                let configuration = try await Client.register(token: Self.token, clientName: "restore", apiURL: proxy)
                let (laptop, phone, onLaptop, onPhone) = try await Self.devices(in: folder, configuration)
                _ = try await laptop.createDocument(id: "before-backup", body: ["n": 1])
                try await onLaptop.replicate()
                try await onPhone.replicate()

                // The operator takes a backup (server stopped), and the server goes on.
                servers.stop()
                try FileManager.default.copyItem(at: live, to: backup)
                try await servers.start(live)
                upstream.move(to: try servers.url())
                _ = try await laptop.createDocument(id: "after-backup", body: ["n": 2])
                try await onLaptop.replicate()
                #expect(try await onPhone.replicate().revisionsApplied == 1)

                // The server is lost and restored from the backup: it lacks "after-backup" and both checkpoints.
                servers.stop()
                try await servers.start(backup)
                upstream.move(to: try servers.url())
                _ = try await laptop.createDocument(id: "after-restore", body: ["n": 3])
                let pushed = try await onLaptop.replicate()
                #expect(pushed.restartedFromZero && pushed.revisionsPushed == 2, "\(pushed)")
                let pulled = try await onPhone.replicate()
                #expect(pulled.restartedFromZero && pulled.revisionsApplied == 1, "\(pulled)")
                #expect((try? await phone.document(id: "after-restore")) != nil)
                // Settled again: nothing starts over twice.
                let again = try await onLaptop.replicate()
                #expect(!again.restartedFromZero && again.revisionsPushed == 0 && again.revisionsApplied == 0)
                await laptop.close()
                await phone.close()
            }
        }
    }

    @Test(
        "attachments replicate: each body uploaded once per content, received once, the same bytes, none in plaintext on the server (folder and S3 blob stores)",
        arguments: [false] + (TestBucket.isAvailable ? [true] : [])
    )
    func attachments(inObjectStore: Bool) async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appending(path: "server-data")
            let bucket = inObjectStore ? try await TestBucket.make() : nil
            let server = try await ServerProcess(
                arguments: ["--data-directory", data.path, "--registration-token", Self.token]
                    + (bucket?.arguments ?? []),
                environment: bucket?.environment ?? [:]
            )
            defer { server.stop() }
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "photos", apiURL: url)
            let (laptop, phone, onLaptop, onPhone) = try await Self.devices(in: folder, configuration)
            let canary = "attachment-canary-51c7"
            let photo = Array(String(repeating: canary + " ", count: 20_000).utf8)  // ~460 KiB, several chunks
            func chunks(_ bytes: [UInt8]) -> AsyncStream<[UInt8]> {
                AsyncStream { continuation in
                    for start in stride(from: 0, to: bytes.count, by: 100_000) {
                        continuation.yield(Array(bytes[start..<min(start + 100_000, bytes.count)]))
                    }
                    continuation.finish()
                }
            }
            func contents(_ store: Datastore, _ docID: String, _ name: String) async throws -> [UInt8] {
                var bytes: [UInt8] = []
                for try await piece in store.attachmentContents(named: name, of: try await store.document(id: docID)) {
                    bytes += piece
                }
                return bytes
            }
            // The same body on two documents, and a later revision that carries it forward: one upload.
            var original = try await laptop.createDocument(id: "photo", body: ["title": "beach"])
            original = try await laptop.addAttachment(
                named: "full.jpg",
                contentType: "image/jpeg",
                to: original,
                contents: chunks(photo)
            )
            _ = try await laptop.update(from: original, body: ["title": "beach, 2026"])
            let copy = try await laptop.createDocument(id: "copy", body: [:])
            _ = try await laptop.addAttachment(
                named: "same.jpg",
                contentType: "image/jpeg",
                to: copy,
                contents: chunks(photo)
            )
            #expect(try await onLaptop.replicate().revisionsPushed == 2)

            let client = Client(configuration: configuration)
            let type = try Self.notesType(of: configuration)
            func bodies() async throws -> Int {
                try await client.query(QueryParams(count: 1_000, types: [type], includesData: false)).records
                    .filter { $0.meta.plain[RevisionRecord.PlainKey.attachment] != nil }.count
            }
            #expect(try await bodies() == 1, "one body for one content")

            let pulled = try await onPhone.replicate()
            #expect(pulled.revisionsApplied == 2, "\(pulled)")
            #expect(try await contents(phone, "photo", "full.jpg") == photo)
            #expect(try await contents(phone, "copy", "same.jpg") == photo)
            #expect(try await phone.document(id: "photo").attachments["full.jpg"]?.revpos == 2)

            // The phone adds another body; the laptop receives it and still has the first.
            let note = Array("a second attachment, \(canary)".utf8)
            let current = try await phone.document(id: "photo")
            _ = try await phone.addAttachment(
                named: "note.txt",
                contentType: "text/plain",
                to: current,
                contents: chunks(note)
            )
            #expect(try await onPhone.replicate().revisionsPushed == 1)
            #expect(try await onLaptop.replicate().revisionsApplied == 1)
            #expect(try await contents(laptop, "photo", "note.txt") == note)
            #expect(try await contents(laptop, "photo", "full.jpg") == photo)
            #expect(try await bodies() == 2)
            #expect(try await onLaptop.replicate().revisionsPushed == 0)

            if let bucket {
                // S3: every object of the bucket, copied beside the data directory to be scanned with it.
                #expect(try await bucket.copyObjects(into: data.appending(path: "s3-objects")) == 2, "two bodies")
            }
            let findings = try PlaintextScan.scan(data, for: [Data(canary.utf8)])
            #expect(findings.isEmpty, "plaintext on the server: \(findings)")
            await laptop.close()
            await phone.close()
        }
    }

    @Test("compaction: the server forgets revisions far below every leaf; devices still merge, a new one gets the leaf")
    func compaction() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "compact", apiURL: url)
            try await withTemporaryDirectory { folder in
                let (laptop, phone, onLaptop, onPhone) = try await Self.devices(in: folder, configuration)
                var revision = try await laptop.createDocument(id: "draft", body: ["v": 1])
                try await onLaptop.replicate()
                for version in 2...5 {
                    revision = try await laptop.update(from: revision, body: ["v": .number(Double(version))])
                    try await onLaptop.replicate()  // each generation becomes a record on the server
                }
                _ = try await laptop.createDocument(id: "single", body: ["v": 1])
                try await onLaptop.replicate()
                try await onPhone.replicate()

                #expect(try await onLaptop.compact(revsLimit: 2) == 3, "generations 1 to 3 of draft")
                #expect(try await onLaptop.compact(revsLimit: 2) == 0)
                await #expect(throws: SyncError.self) { try await onLaptop.compact(revsLimit: 0) }

                // A new device gets the leaf with its whole ancestry (older generations as stubs).
                let tablet = try await DatastoreManager(directory: folder.appending(path: "tablet"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let onTablet = Replicator(
                    datastore: tablet,
                    name: "notes",
                    client: Client(configuration: configuration)
                )
                #expect(try await onTablet.replicate().revisionsApplied == 3, "draft's generations 4 and 5, and single")
                let leaf = try await tablet.document(id: "draft")
                #expect(leaf.revID == revision.revID && leaf.body == ["v": 5])
                #expect(try await tablet.revisionHistory(of: leaf).count == 5)

                // Concurrent edits still meet as one conflict everywhere.
                _ = try await laptop.update(from: revision, body: ["v": "laptop"])
                _ = try await tablet.update(from: leaf, body: ["v": "tablet"])
                for replicator in [onLaptop, onTablet, onLaptop, onPhone] { try await replicator.replicate() }
                for store in [laptop, phone, tablet] {
                    #expect(try await store.conflictedDocumentIDs() == ["draft"])
                }
                for store in [laptop, phone, tablet] { await store.close() }
            }
        }
    }

    /// The record type of the datastore "notes" of the client `configuration` registered.
    static func notesType(of configuration: Client.Configuration) throws -> String {
        try ReplicationTypeKey(
            privateKey: configuration.keys.encryptionKey,
            clientID: configuration.clientID.uuidString.lowercased()
        ).recordType(forDatastoreNamed: "notes")
    }

    /// Two devices of one client: a datastore "notes" each, under its own local key, and a replicator each.
    @Test("a datastore replicates only with the client and server it first synced with, unless re-homed on purpose")
    func home() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let mine = try await Client.register(token: Self.token, clientName: "mine", apiURL: url)
            let other = try await Client.register(token: Self.token, clientName: "other", apiURL: url)
            try await withTemporaryDirectory { folder in
                let (laptop, _, onLaptop, _) = try await Self.devices(in: folder, mine)
                _ = try await laptop.createDocument(id: "private", body: ["secret": "mine"])
                _ = try await onLaptop.replicate()
                // The same datastore, synced by mistake with another client: refused before anything moves.
                let wrong = Replicator(datastore: laptop, name: "notes", client: Client(configuration: other))
                let refused = await #expect(throws: SyncError.self) { try await wrong.replicate() }
                #expect(refused?.code == .otherHome)
                #expect(
                    refused?.message.contains(mine.clientID.uuidString.lowercased()) == true,
                    "\(String(describing: refused))"
                )
                let othersView = Replicator(
                    datastore: try await DatastoreManager(directory: folder.appending(path: "other"))
                        .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random())),
                    name: "notes",
                    client: Client(configuration: other)
                )
                #expect(try await othersView.replicate().revisionsApplied == 0, "nothing reached the other account")
                // Another server: refused too.
                var elsewhere = mine
                elsewhere.apiURL = try #require(URL(string: "http://127.0.0.1:1"))
                let moved = Replicator(datastore: laptop, name: "notes", client: Client(configuration: elsewhere))
                await #expect(throws: SyncError.self) { try await moved.replicate() }
                // Re-homed on purpose: the other client now receives it.
                try await wrong.rehome()
                #expect(try await wrong.replicate().revisionsPushed == 1)
                #expect(try await othersView.replicate().revisionsApplied == 1)
                await #expect(throws: SyncError.self) { try await onLaptop.replicate() }
                await laptop.close()
            }
        }
    }

    static func devices(
        in folder: URL,
        _ configuration: Client.Configuration
    ) async throws -> (Datastore, Datastore, Replicator, Replicator) {
        let laptop = try await DatastoreManager(directory: folder.appending(path: "laptop"))
            .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
        let phone = try await DatastoreManager(directory: folder.appending(path: "phone"))
            .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
        return (
            laptop, phone, Replicator(datastore: laptop, name: "notes", client: Client(configuration: configuration)),
            Replicator(datastore: phone, name: "notes", client: Client(configuration: configuration))
        )
    }

    /// One server process at a time, on a data directory of the test's choosing.
    final class ServerSlot: Sendable {
        private let current = Mutex<ServerProcess?>(nil)

        func start(_ data: URL) async throws {
            let server = try await ServerProcess(
                arguments: ["--data-directory", data.path, "--registration-token", ReplicatorTests.token]
            )
            current.withLock { $0 = server }
        }

        func url() throws -> URL { try #require(current.withLock { $0.flatMap { URL(string: $0.baseURL) } }) }

        func stop() {
            current.withLock {
                $0?.stop(); $0 = nil
            }
        }
    }

    @Test("a record another client wrote into the type and shared is refused (counted), never applied")
    func foreignWriterRefused() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let alice = try await Client.register(token: Self.token, clientName: "alice", apiURL: url)
            let mallory = Client(
                configuration: try await Client.register(token: Self.token, clientName: "m", apiURL: url)
            )
            try await withTemporaryDirectory { folder in
                let store = try await DatastoreManager(directory: folder)
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let replicator = Replicator(datastore: store, name: "notes", client: Client(configuration: alice))
                _ = try await replicator.replicate()  // makes alice's key for the type
                // Mallory writes a record into alice's type (a purge marker: v1 takes only bookkeeping records of a
                // replicated type) and shares it with her.
                let type = try Self.notesType(of: alice)
                _ = try await mallory.write(type: type, data: ["doc": "planted"], plain: ["sr.v": "1", "sr.p": "x"])
                try await mallory.share(type: type, readerID: alice.clientID)
                let report = try await replicator.replicate(.pull)
                #expect(report.revisionsRefused == 1 && report.revisionsApplied == 0, "\(report)")
                #expect(try await store.documentCount() == 0)
                await store.close()
            }
        }
    }

    @Test("the official Python SDK reads a pushed revision record as an ordinary record of its type")
    func pythonReadsRevisionRecord() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            var configuration = try await Client.register(token: Self.token, clientName: "py", apiURL: url)
            // Replicated types keep no classical EAK by default (post-quantum `require`): the official SDK reads
            // them only where the writer keeps one.
            configuration.postQuantum.replicatedMode = .prefer
            try await withTemporaryDirectory { home in
                let store = try await DatastoreManager(directory: home.appending(path: "stores"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let revision = try await store.createDocument(id: "shared-doc", body: ["title": "read by python"])
                let client = Client(configuration: configuration)
                _ = try await Replicator(datastore: store, name: "notes", client: client).replicate(.push)
                let type = try Self.notesType(of: configuration)
                let records = try await client.query(QueryParams(types: [type])).records
                let recordID = try #require(records.first?.meta.recordID.uuidString.lowercased())
                try configuration.save(profile: "swift", in: home.appending(path: ".tozny"))
                let outcome = try await PythonSDK.run(
                    [PythonSDK.path("Scripts/conformance/interop_client.py"), "read-with-profile", "swift", recordID],
                    environment: [
                        "HOME": home.path, "STRONGROOM_URL": url.absoluteString, "REGISTRATION_TOKEN": Self.token,
                    ]
                )
                #expect(outcome.status == 0, "\(outcome.output)")
                for part in [
                    "\"doc\": \"shared-doc\"", "\"rev\": \"\(revision.revID)\"", "read by python", "\"deleted\": \"0\"",
                ] {
                    #expect(outcome.output.contains(part), "\(part): \(outcome.output)")
                }
                await store.close()
            }
        }
    }
}

extension [String] {
    /// The value after the last `flag` in an argument list.
    func last(after flag: String) -> String? {
        guard let index = lastIndex(of: flag), index + 1 < count else { return nil }
        return self[index + 1]
    }
}
