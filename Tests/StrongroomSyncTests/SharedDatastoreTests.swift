// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import StrongroomWire
import Testing

/// Issue 49, slice 1: a datastore shared between clients. The owner shares it read-write with one client and
/// read-only with another; every member's revisions reach every other; the reader's local edits are refused at push;
/// after a revoke the server refuses the revoked member's reads, every replica refuses its later revisions, and the
/// revoked member purges its copy (or keeps it, when asked).
@Suite struct SharedDatastoreTests {
    static let token = "share-token"

    static func store(_ folder: URL, _ name: String) async throws -> Datastore {
        try await DatastoreManager(directory: folder.appending(path: name))
            .datastore(named: "team", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
    }

    @Test(
        "owner, read-write member and reader converge; the reader cannot push; a revoked writer is refused and purges"
    )
    func ownerWriterReader() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let ownerClient = Client(
                configuration: try await Client.register(token: Self.token, clientName: "owner", apiURL: url)
            )
            let writerClient = Client(
                configuration: try await Client.register(token: Self.token, clientName: "writer", apiURL: url)
            )
            let readerClient = Client(
                configuration: try await Client.register(token: Self.token, clientName: "reader", apiURL: url)
            )
            let (writerID, readerID) = (writerClient.configuration.clientID, readerClient.configuration.clientID)
            try await withTemporaryDirectory { folder in
                let (owned, written, read) = (
                    try await Self.store(folder, "owner"), try await Self.store(folder, "writer"),
                    try await Self.store(folder, "reader")
                )
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                _ = try await owned.createDocument(id: "plan", body: ["step": 1])
                try await owner.replicate()

                let shared = try await owner.sharedDatastore()
                #expect(SharedDatastore(shared.description) == shared)
                try await owner.share(with: writerID, access: .readWrite)
                try await owner.share(with: readerID, access: .read)
                #expect(
                    try await owner.members().sorted { $0.access.rawValue < $1.access.rawValue }
                        == [Member(clientID: readerID, access: .read), Member(clientID: writerID, access: .readWrite)]
                )
                let writer = Replicator(datastore: written, sharedDatastore: shared, client: writerClient)
                let reader = Replicator(datastore: read, sharedDatastore: shared, client: readerClient)
                await #expect(throws: SyncError.self) { try await writer.share(with: readerID, access: .readWrite) }

                // The writer pulls the plan, edits it and adds a document; the owner and the reader receive both.
                #expect(try await writer.replicate().revisionsApplied == 1)
                let edited = try await written.update(from: try await written.document(id: "plan"), body: ["step": 2])
                _ = try await written.createDocument(id: "notes", body: ["by": "writer"])
                #expect(try await writer.replicate().revisionsPushed == 2)
                #expect(try await owner.replicate().revisionsApplied == 2)
                #expect(try await owned.document(id: "plan").revID == edited.revID)
                #expect(try await reader.replicate().revisionsApplied == 3)
                #expect(try await read.document(id: "notes").body == ["by": "writer"])

                // Concurrent edits by the owner and the writer: the same conflict everywhere.
                _ = try await owned.update(from: try await owned.document(id: "plan"), body: ["step": "owner"])
                _ = try await written.update(from: edited, body: ["step": "writer"])
                for replicator in [owner, writer, owner, reader] { try await replicator.replicate() }
                for store in [owned, written, read] { #expect(try await store.conflictedDocumentIDs() == ["plan"]) }

                // The reader's local edit is refused at push, and stays local.
                _ = try await read.createDocument(id: "mine", body: [:])
                let refused = await #expect(throws: SyncError.self) { try await reader.replicate() }
                #expect(refused?.code == .readOnly)
                #expect(try await read.document(id: "mine").body == [:])
                await #expect(throws: DatastoreError.self) { try await owned.document(id: "mine") }
                // Until it drops them: its new document goes, its edit of a shared one leaves the shared winner.
                _ = try await read.update(from: try await read.document(id: "notes"), body: ["by": "reader"])
                #expect(try await reader.discardUnpushedRevisions() == 2)
                await #expect(throws: DatastoreError.self) { try await read.document(id: "mine") }
                #expect(try await read.document(id: "notes").body == ["by": "writer"])
                #expect(try await reader.replicate().revisionsApplied == 0)
                _ = try await read.createDocument(id: "mine", body: [:])

                // The writer keeps the key it had, is revoked, and writes once more straight to the server.
                let type = shared.type
                let tags = try RevisionTagKey(
                    accessKey: try await writerClient.sharedAccessKey(type: type, ownerID: shared.ownerID)
                )
                try await owner.revoke(writerID)
                #expect(try await owner.members() == [Member(clientID: readerID, access: .read)])
                let late = try RevisionRecord(
                    docID: "late",
                    revID: "1-abc",
                    ancestry: ["1-abc"],
                    isDeleted: false,
                    body: #"{"after":"revoke"}"#
                )
                let write = [Client.RevisionWrite(fields: late.fields, plain: late.plain(tags: tags))]
                // The server refuses it at once…
                let refusedWrite = await #expect(throws: ClientError.self) {
                    try await writerClient.writeRevisions(type: type, write)
                }
                #expect(refusedWrite?.code == .forbidden)
                // …and a server that lets it through (here, told the writer may write again without a membership
                // record) does not get it applied: every replica folds the owner's records, not the server's word.
                try await ownerClient.setSyncAccess(type: type, member: writerID, access: .readWrite)
                _ = try await writerClient.writeRevisions(type: type, write)
                try await ownerClient.setSyncAccess(type: type, member: writerID, access: .revoked)
                let ownerReport = try await owner.replicate()
                #expect(ownerReport.revisionsRefused >= 1 && ownerReport.revisionsApplied == 0, "\(ownerReport)")
                await #expect(throws: DatastoreError.self) { try await owned.document(id: "late") }
                _ = try? await reader.replicate()  // read-only: still refuses its own edit
                await #expect(throws: DatastoreError.self) { try await read.document(id: "late") }
                // The revisions it wrote while a member stay.
                #expect(try await owned.document(id: "notes").body == ["by": "writer"])

                // The revoked writer learns it on its next sync and purges its copy.
                let lost = await #expect(throws: SyncError.self) { try await writer.replicate() }
                #expect(lost?.code == .accessRevoked)
                #expect(try await written.documentCount() == 0)

                // A revoked reader that keeps its copy keeps it.
                try await owner.revoke(readerID)
                let keeping = Replicator(
                    datastore: read,
                    sharedDatastore: shared,
                    client: readerClient,
                    keepsCopyOnAccessLoss: true
                )
                let gone = await #expect(throws: SyncError.self) { try await keeping.replicate() }
                #expect(gone?.code == .accessRevoked)
                #expect(try await read.document(id: "notes").body == ["by": "writer"])
                for store in [owned, written, read] { await store.close() }
            }
        }
    }

    @Test(
        "a read-write member's malformed records (signed by it) are refused alone: the others' pulls go on, and the owner's own still fail closed"
    )
    func malformedMemberRecord() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let ownerClient = try await SyncQuotaTests.client(server, "owner")
            let writerClient = try await SyncQuotaTests.client(server, "writer")
            try await withTemporaryDirectory { folder in
                let (owned, written) = (try await Self.store(folder, "owner"), try await Self.store(folder, "writer"))
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                _ = try await owned.createDocument(id: "plan", body: ["step": 1])
                try await owner.replicate()
                let shared = try await owner.sharedDatastore()
                try await owner.share(with: writerClient.configuration.clientID, access: .readWrite)
                let writer = Replicator(datastore: written, sharedDatastore: shared, client: writerClient)
                try await writer.replicate()
                // The writer, straight to the server: a revision under another document's tags, one whose body is
                // not JSON, and a purge marker under a revision's tags; each signed by it, so the server did nothing.
                let tags = try RevisionTagKey(
                    accessKey: try await writerClient.sharedAccessKey(type: shared.type, ownerID: shared.ownerID)
                )
                let swapped = try RevisionRecord(
                    docID: "a",
                    revID: "1-aa",
                    ancestry: ["1-aa"],
                    isDeleted: false,
                    body: "{}"
                )
                let other = try RevisionRecord(
                    docID: "b",
                    revID: "1-bb",
                    ancestry: ["1-bb"],
                    isDeleted: false,
                    body: "{}"
                )
                var notJSON = try RevisionRecord(
                    docID: "c",
                    revID: "1-cc",
                    ancestry: ["1-cc"],
                    isDeleted: false,
                    body: "{}"
                ).fields
                notJSON[RevisionRecord.FieldName.body] = "[not json"
                let purge = try PurgeRecord(docID: "plan", revIDs: ["1-dd"])
                let third = try RevisionRecord(
                    docID: "c",
                    revID: "1-cc",
                    ancestry: ["1-cc"],
                    isDeleted: false,
                    body: "{}"
                )
                _ = try await writerClient.writeRevisions(
                    type: shared.type,
                    [
                        Client.RevisionWrite(fields: swapped.fields, plain: other.plain(tags: tags)),
                        Client.RevisionWrite(fields: notJSON, plain: third.plain(tags: tags)),
                        Client.RevisionWrite(
                            fields: purge.fields,
                            plain: try RevisionRecord(
                                docID: "d",
                                revID: "1-ee",
                                ancestry: ["1-ee"],
                                isDeleted: false,
                                body: "{}"
                            ).plain(tags: tags)
                        ),
                    ]
                )
                // And a good revision after them.
                let after = try RevisionRecord(
                    docID: "after",
                    revID: "1-ff",
                    ancestry: ["1-ff"],
                    isDeleted: false,
                    body: #"{"ok":true}"#
                )
                _ = try await writerClient.writeRevisions(
                    type: shared.type,
                    [Client.RevisionWrite(fields: after.fields, plain: after.plain(tags: tags))]
                )
                let report = try await owner.replicate()
                #expect(report.revisionsRefused == 3 && report.revisionsApplied == 1, "\(report)")
                #expect(try await owned.document(id: "after").body == ["ok": true])
                #expect(try await owned.document(id: "plan").body == ["step": 1])
                for docID in ["a", "b", "c"] {
                    await #expect(throws: DatastoreError.self) { try await owned.document(id: docID) }
                }
                // A malformed record under the owner's own name still stops the pull: only the server could have
                // put it there.
                let ownerTags = try RevisionTagKey(
                    accessKey: try await ownerClient.replicationAccessKey(type: shared.type)
                )
                _ = try await ownerClient.writeRevisions(
                    type: shared.type,
                    [Client.RevisionWrite(fields: swapped.fields, plain: other.plain(tags: ownerTags))]
                )
                let stopped = await #expect(throws: SyncError.self) { try await writer.replicate() }
                #expect(stopped?.code == .tampered)
                for store in [owned, written] { await store.close() }
            }
        }
    }

    @Test("the official Python SDK, as a member, reads the owner's revision record; as the owner, a writer's")
    func pythonReadsSharedRevisions() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            var ownerConfiguration = try await Client.register(token: Self.token, clientName: "owner", apiURL: url)
            var memberConfiguration = try await Client.register(token: Self.token, clientName: "member", apiURL: url)
            // Replicated types keep no classical EAK by default (post-quantum `require`): the official SDK reads
            // them only where the owner keeps one.
            ownerConfiguration.postQuantum.replicatedMode = .prefer
            memberConfiguration.postQuantum.replicatedMode = .prefer
            let (ownerClient, memberClient) = (
                Client(configuration: ownerConfiguration), Client(configuration: memberConfiguration)
            )
            try await withTemporaryDirectory { home in
                let owned = try await Self.store(home, "owner")
                let theirs = try await Self.store(home, "member")
                _ = try await owned.createDocument(id: "by-owner", body: ["text": "the owner's words"])
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                try await owner.replicate()
                let shared = try await owner.sharedDatastore()
                try await owner.share(with: memberConfiguration.clientID, access: .readWrite)
                let member = Replicator(datastore: theirs, sharedDatastore: shared, client: memberClient)
                _ = try await theirs.createDocument(id: "by-member", body: ["text": "the member's words"])
                try await member.replicate()

                func recordID(writtenBy writer: Client.Configuration) async throws -> String {
                    let records = try await memberClient.query(
                        QueryParams(types: [shared.type], includesAllWriters: true, writerIDs: [writer.clientID])
                    ).records.filter { $0.meta.plain[RevisionRecord.PlainKey.revisionTag] != nil }
                    return try #require(records.first?.meta.recordID.uuidString.lowercased())
                }
                try ownerConfiguration.save(profile: "owner", in: home.appending(path: ".tozny"))
                try memberConfiguration.save(profile: "member", in: home.appending(path: ".tozny"))
                for (profile, writer, words) in [
                    ("member", ownerConfiguration, "the owner's words"),
                    ("owner", memberConfiguration, "the member's words"),
                ] {
                    let outcome = try await PythonSDK.run(
                        [
                            PythonSDK.path("Scripts/conformance/interop_client.py"), "read-with-profile", profile,
                            try await recordID(writtenBy: writer),
                        ],
                        environment: [
                            "HOME": home.path, "STRONGROOM_URL": url.absoluteString, "REGISTRATION_TOKEN": Self.token,
                        ]
                    )
                    #expect(outcome.status == 0 && outcome.output.contains(words), "\(profile): \(outcome.output)")
                }
                await owned.close()
                await theirs.close()
            }
        }
    }
}

/// Three writers at once (the benchmark's `members` mode, small): an owner and two read-write members write apart and
/// replicate concurrently until each holds every document. It found concurrent transactions on the server's one
/// SQLite connection interleaving (`ConnectionGate` now gives the connection in turns).
@Suite struct ThreeWritersTests {
    @Test("an owner and two read-write members replicating at once converge on all three sets")
    func threeWriters() async throws {
        try await ServerProcess.withServer(
            engine: .sqlite,
            arguments: ["--registration-token", SharedDatastoreTests.token]
        ) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            var clients: [Client] = []
            for name in ["owner", "one", "two"] {
                clients.append(
                    Client(
                        configuration: try await Client.register(
                            token: SharedDatastoreTests.token,
                            clientName: name,
                            apiURL: url
                        )
                    )
                )
            }
            try await withTemporaryDirectory { folder in
                let ownerStore = try await SharedDatastoreTests.store(folder, "owner")
                let owner = Replicator(datastore: ownerStore, name: "team", client: clients[0])
                try await owner.replicate()
                let shared = try await owner.sharedDatastore()
                for member in clients.dropFirst() {
                    try await owner.share(with: member.configuration.clientID, access: .readWrite)
                }
                var replicas = [(ownerStore, owner)]
                for (number, member) in clients.dropFirst().enumerated() {
                    let store = try await SharedDatastoreTests.store(folder, "member\(number)")
                    replicas.append((store, Replicator(datastore: store, sharedDatastore: shared, client: member)))
                }
                for (number, (store, _)) in replicas.enumerated() {
                    for index in 0..<300 { _ = try await store.createDocument(id: "w\(number)-\(index)", body: [:]) }
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (store, replicator) in replicas {
                        group.addTask {
                            for _ in 0..<6 where try await store.documentCount() < 900 {
                                try await replicator.replicate()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                // Every replica has replicated at least once, so all 900 are on the server now; a replica whose rounds
                // all ran before another's first push landed (a busy machine) takes them in one more round. The test
                // depends on no one's speed.
                for (store, replicator) in replicas where try await store.documentCount() < 900 {
                    try await replicator.replicate()
                }
                for (store, _) in replicas {
                    #expect(try await store.documentCount() == 900)
                    await store.close()
                }
            }
        }
    }
}

/// Bounded and fair (issue 49): the server caps the records each writer keeps per datastore (revisions, checkpoints,
/// purge markers, attachment bodies), the revisions it keeps per document, each record's size and the attachment bytes
/// of a datastore; a push past a cap is refused whole (413) with a typed error, and nothing of that batch is stored.
@Suite struct SyncQuotaTests {
    static func client(_ server: ServerProcess, _ name: String) async throws -> Client {
        let url = try #require(URL(string: server.baseURL))
        return Client(
            configuration: try await Client.register(token: SharedDatastoreTests.token, clientName: name, apiURL: url)
        )
    }

    @Test("a push over the per-writer cap is quotaExceeded and stores nothing; compaction makes room again")
    func perWriterCap() async throws {
        try await ServerProcess.withServer(
            engine: .sqlite,
            arguments: ["--registration-token", SharedDatastoreTests.token, "--sync-records-per-writer", "7"]
        ) { server, _ in
            let client = try await Self.client(server, "q")
            try await withTemporaryDirectory { folder in
                let store = try await SharedDatastoreTests.store(folder, "capped")
                let replicator = Replicator(datastore: store, name: "team", client: client)
                // Three revisions of d0, one push each, and this replica's checkpoint record: four records.
                var revision = try await store.createDocument(id: "d0", body: ["n": 0])
                #expect(try await replicator.replicate(.push).revisionsPushed == 1)
                for number in 1...2 {
                    revision = try await store.update(from: revision, body: ["n": .number(Double(number))])
                    #expect(try await replicator.replicate(.push).revisionsPushed == 1)
                }
                for number in 1...4 { _ = try await store.createDocument(id: "d\(number)", body: [:]) }
                let error = await #expect(throws: SyncError.self) { try await replicator.replicate(.push) }
                #expect(error?.code == .quotaExceeded)
                // Nothing of the refused batch is on the server: a fresh replica (a fifth record, its checkpoint)
                // pulls d0 only.
                let fresh = try await SharedDatastoreTests.store(folder, "fresh")
                _ = try await Replicator(datastore: fresh, name: "team", client: client).replicate(.pull)
                #expect(try await fresh.documentCount() == 1)
                // Compacting d0's history away on the server makes room again.
                #expect(try await replicator.compact(revsLimit: 1) == 2)
                #expect(try await replicator.replicate(.push).revisionsPushed == 4)
                for store in [store, fresh] { await store.close() }
            }
        }
    }

    @Test("a document's revisions past the per-document cap, and an attachment past the size cap, are quotaExceeded")
    func perDocumentAndAttachmentCaps() async throws {
        try await ServerProcess.withServer(
            engine: .sqlite,
            arguments: [
                "--registration-token", SharedDatastoreTests.token, "--sync-revisions-per-document", "2",
                "--maximum-attachment-bytes", "4096",
            ]
        ) { server, _ in
            let client = try await Self.client(server, "q")
            try await withTemporaryDirectory { folder in
                let store = try await SharedDatastoreTests.store(folder, "capped")
                let replicator = Replicator(datastore: store, name: "team", client: client)
                var revision = try await store.createDocument(id: "d0", body: ["n": 0])
                _ = try await replicator.replicate(.push)
                revision = try await store.update(from: revision, body: ["n": 1])
                _ = try await replicator.replicate(.push)
                revision = try await store.update(from: revision, body: ["n": 2])
                let third = await #expect(throws: SyncError.self) { try await replicator.replicate(.push) }
                #expect(third?.code == .quotaExceeded, "a third revision of d0")
                // Other documents still go; an attachment larger than the server takes does not.
                _ = try await replicator.compact(revsLimit: 1)
                #expect(try await replicator.replicate(.push).revisionsPushed == 1, "room again after compaction")
                _ = try await store.createDocument(id: "small", body: [:])
                #expect(try await replicator.replicate(.push).revisionsPushed == 1)
                let large = try await store.createDocument(id: "large", body: [:])
                _ = try await store.addAttachment(
                    named: "big.bin",
                    contentType: "application/octet-stream",
                    to: large,
                    contents: AsyncStream<[UInt8]> {
                        $0.yield([UInt8](repeating: 7, count: 8192))
                        $0.finish()
                    }
                )
                let tooLarge = await #expect(throws: SyncError.self) { try await replicator.replicate(.push) }
                #expect(tooLarge?.code == .quotaExceeded, "an 8 KiB attachment past a 4 KiB cap")
                await store.close()
            }
        }
    }
}
