// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient
@testable import StrongroomSync

/// Issue 75, item 3: revoking a member of a shared datastore rotates it (docs/design/Revocation.md, "Shared
/// datastores"). The revoked member — holding every key it ever had (the owner's, a read-write member's, its own)
/// and the server's stored records and attachment bodies — opens none of the revisions, bookkeeping records or
/// attachments written after its revocation; a remaining member and one added afterwards replicate every document,
/// old and new, with its attachments.
@Suite struct SharedDatastoreRotationTests {
    static let token = "rotation-token"

    /// A server (`engine`) and a way to register clients on it: where each test starts.
    static func withServer(
        engine: TestEngine,
        _ body: (ServerProcess, _ client: (String) async throws -> Client) async throws -> Void
    ) async throws {
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", token]) { server, _ in
            let url = try #require(URL(string: server.baseURL))
            try await body(server) { name in
                Client(configuration: try await Client.register(token: token, clientName: name, apiURL: url))
            }
        }
    }

    static func store(_ folder: URL, _ name: String) async throws -> Datastore {
        try await DatastoreManager(directory: folder.appending(path: name))
            .datastore(named: "team", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
    }

    static func chunks(_ bytes: [UInt8]) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            continuation.yield(bytes)
            continuation.finish()
        }
    }

    /// Writes `count` documents named `prefix-i`, the first with an attachment of its own content.
    static func write(_ count: Int, _ prefix: String, to store: Datastore) async throws {
        for index in 0..<count {
            let document = try await store.createDocument(id: "\(prefix)-\(index)", body: ["n": .string(prefix)])
            if index == 0 {
                _ = try await store.addAttachment(
                    named: "file.txt",
                    contentType: "text/plain",
                    to: document,
                    contents: chunks(Array("attachment of \(prefix), \(UUID())".utf8))
                )
            }
        }
    }

    /// Every record of `type` as the server stores it, listed for `client` (the owner reads every writer's).
    static func stored(_ type: String, by client: Client) async throws -> [SearchResult] {
        var (results, after) = ([SearchResult](), Int64(0))
        while true {
            let page = try await client.authenticated(
                .POST,
                E3DBPath.search.render(),
                body: QueryParams(
                    count: 1_000,
                    types: [type],
                    includesAllWriters: true,
                    includesData: true,
                    afterIndex: after
                ).wire,
                success: [200],
                as: SearchResponse.self
            )
            results += page.results
            guard !page.results.isEmpty, page.lastIndex > after else { return results }
            after = page.lastIndex
        }
    }

    /// The stored ciphertext of file record `id`, as the blob store holds it.
    static func body(of id: String, by client: Client, at server: String) async throws -> [UInt8] {
        let record = try await client.authenticated(
            .GET,
            E3DBPath.file.render(id),
            success: [200],
            as: RecordResponse.self
        )
        let fileURL = try #require(record.meta.fileMeta?.fileURL)
        let url = try #require(URLComponents(string: fileURL))
        let request = HTTPClientRequest(url: server + url.path + "?" + (url.percentEncodedQuery ?? ""))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        try #require(response.status.code == 200)
        return Array(buffer: try await response.body.collect(upTo: 16 << 20))
    }

    /// Whether any of `keys` opens the file key sealed in `body`'s header.
    static func opens(_ body: [UInt8], under keys: [AccessKey]) -> Bool {
        var decryptor = FileDecryptor(accessKeys: keys)
        var plaintext: [UInt8] = []
        defer { Wipe.allocation(&plaintext) }
        do {
            try decryptor.update(body.prefix(4_096), into: &plaintext)
            return true
        } catch {
            return false
        }
    }

    /// A document's body and its attachments' contents.
    struct Snapshot: Equatable {
        var body: [String: JSONValue]
        var attachments: [String: [UInt8]] = [:]
    }

    /// Every live document of `store`, for comparing replicas.
    static func contents(of store: Datastore) async throws -> [String: Snapshot] {
        var documents: [String: Snapshot] = [:]
        var since: Int64 = 0
        while true {
            let page = try await store.changes(since: since, limit: 1_000)
            guard !page.changes.isEmpty else { return documents }
            for change in page.changes where !change.isDeleted {
                let document = try await store.document(id: change.docID)
                var snapshot = Snapshot(body: document.body)
                for name in document.attachments.keys {
                    var bytes: [UInt8] = []
                    for try await piece in store.attachmentContents(named: name, of: document) { bytes += piece }
                    snapshot.attachments[name] = bytes
                }
                documents[change.docID] = snapshot
            }
            since = page.lastSequence
        }
    }

    @Test(
        "a revoked member with every key it held and the server's records and bodies opens nothing new; others read all",
        arguments: TestEngine.available
    )
    func revokedMemberWithADump(engine: TestEngine) async throws {
        try await Self.withServer(engine: engine) { server, client in
            let (ownerClient, writerClient, revokedClient, keptClient) = (
                try await client("owner"), try await client("writer"), try await client("revoked"),
                try await client("kept")
            )
            try await withTemporaryDirectory { folder in
                let (owned, written, taken, kept) = (
                    try await Self.store(folder, "owner"), try await Self.store(folder, "writer"),
                    try await Self.store(folder, "revoked"), try await Self.store(folder, "kept")
                )
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                try await Self.write(3, "owner-before", to: owned)
                try await owner.replicate()
                let shared = try await owner.sharedDatastore()
                try await owner.share(with: writerClient.configuration.clientID, access: .readWrite)
                try await owner.share(with: revokedClient.configuration.clientID, access: .readWrite)
                try await owner.share(with: keptClient.configuration.clientID, access: .read)
                let writer = Replicator(datastore: written, sharedDatastore: shared, client: writerClient)
                let revoked = Replicator(datastore: taken, sharedDatastore: shared, client: revokedClient)
                let reader = Replicator(datastore: kept, sharedDatastore: shared, client: keptClient)
                try await Self.write(3, "writer-before", to: written)
                try await writer.replicate()
                try await Self.write(2, "revoked-before", to: taken)
                try await revoked.replicate()
                try await revoked.replicate()  // the writer's revisions too
                #expect(try await taken.documentCount() == 8)

                // Every key the member about to be revoked holds: the owner's, the writer's and its own.
                let type = shared.type
                let id = { (client: Client) in client.configuration.clientID.uuidString.lowercased() }
                var stolen: [AccessKey] = []
                for holder in [ownerClient, writerClient, revokedClient] {
                    stolen.append(
                        try await revokedClient.readerKey(writerID: id(holder), userID: id(holder), type: type)
                    )
                }
                // What the server holds now (record ID and version): the revoked member may open these.
                let before = Set(
                    try await Self.stored(type, by: ownerClient).map { "\($0.meta.recordID)@\($0.meta.version)" }
                )

                let report = try #require(try await owner.revoke(revokedClient.configuration.clientID))
                #expect(report.generation == 2 && report.recordsRewrapped == 0 && report.recordsLeft == 0)
                // The read-write member rotates its own key when its next sync folds the revocation, before it pushes.
                try await Self.write(3, "writer-after", to: written)
                try await writer.replicate()
                try await Self.write(3, "owner-after", to: owned)
                try await owner.replicate()
                try await writer.replicate()

                // The dump: every record and attachment body stored now. What is new (or changed) since the
                // revocation opens under none of the revoked member's keys.
                let dump = try await Self.stored(type, by: ownerClient)
                var (newRecords, newBodies, opened) = (0, 0, 0)
                // The revocation's own membership change is written just before the rotation, under the old key:
                // it tells the member what it learns anyway (that it lost access), and nothing else.
                for result in dump where !before.contains("\(result.meta.recordID)@\(result.meta.version)") {
                    if result.meta.plain[RevisionRecord.PlainKey.membership] != nil { continue }
                    if result.meta.fileMeta != nil {
                        newBodies += 1
                        let body = try await Self.body(of: result.meta.recordID, by: ownerClient, at: server.baseURL)
                        if Self.opens(body, under: stolen) { opened += 1 }
                    } else {
                        newRecords += 1
                        let fields = try (result.recordData ?? [:]).values.map { try EncryptedField(wireFormat: $0) }
                        let opens = { (field: EncryptedField) in
                            stolen.contains { FieldCipher.isSealed(field, under: $0) }
                        }
                        if fields.contains(where: opens) { opened += 1 }
                    }
                }
                #expect(newRecords >= 6 && newBodies == 2, "records \(newRecords), bodies \(newBodies)")
                #expect(opened == 0, "the revoked member's keys open \(opened) of what was written after")

                // It learns on its next sync that it was revoked.
                let lost = await #expect(throws: SyncError.self) { try await revoked.replicate() }
                #expect(lost?.code == .accessRevoked)

                // A remaining member and one added after the revocation replicate everything, old and new.
                let lateClient = try await client("late")
                try await owner.share(with: lateClient.configuration.clientID, access: .read)
                let lateStore = try await Self.store(folder, "late")
                let late = Replicator(datastore: lateStore, sharedDatastore: shared, client: lateClient)
                try await reader.replicate()
                try await late.replicate()
                try await owner.replicate()
                let expected = try await Self.contents(of: owned)
                #expect(expected.count == 14, "\(expected.keys.sorted())")
                for (name, store) in [("kept", kept), ("late", lateStore), ("writer", written)] {
                    let found = try await Self.contents(of: store)
                    let differing = Set(expected.keys).union(found.keys).filter { expected[$0] != found[$0] }
                    #expect(differing.isEmpty, "\(name): \(differing.sorted())")
                }
                for store in [owned, written, taken, kept, lateStore] { await store.close() }
            }
        }
    }

    /// The generation of `client`'s key of `type`, from the server.
    static func generation(of type: String, by client: Client) async throws -> Int {
        let id = client.configuration.clientID.uuidString.lowercased()
        return try await client.authenticated(
            .GET,
            E3DBPath.accessKeyGeneration.render(id, id, type),
            success: [200],
            as: AccessKeyGenerationResponse.self
        ).generation
    }

    @Test("a revoke stopped after its membership change is finished by the owner's next sync; members rotate once")
    func stoppedRevoke() async throws {
        try await Self.withServer(engine: .sqlite) { server, client in
            let (ownerClient, writerClient, revokedClient) = (
                try await client("owner"), try await client("writer"), try await client("revoked")
            )
            try await withTemporaryDirectory { folder in
                let (owned, written, taken) = (
                    try await Self.store(folder, "owner"), try await Self.store(folder, "writer"),
                    try await Self.store(folder, "revoked")
                )
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                try await Self.write(2, "owner", to: owned)
                try await owner.replicate()
                let shared = try await owner.sharedDatastore()
                let revokedID = revokedClient.configuration.clientID
                try await owner.share(with: writerClient.configuration.clientID, access: .readWrite)
                try await owner.share(with: revokedID, access: .read)
                let writer = Replicator(datastore: written, sharedDatastore: shared, client: writerClient)
                let revoked = Replicator(datastore: taken, sharedDatastore: shared, client: revokedClient)
                try await Self.write(2, "writer", to: written)
                try await writer.replicate()
                try await revoked.replicate()

                // The revoke's first two steps, then it stops (a kill): the server refuses the member's writes and
                // every replica will fold the change, but no key has rotated.
                let session = try await owner.session(started: .now)
                try await ownerClient.setSyncAccess(type: shared.type, member: revokedID, access: .revoked)
                try await session.writeMembership(MembershipRecord(member: revokedID, access: nil))
                #expect(try await Self.generation(of: shared.type, by: ownerClient) == 1)

                // The owner's next sync rotates before it pushes; the writer's next sync rotates its own key; a
                // second sync of each rotates nothing more.
                try await owner.replicate()
                #expect(try await Self.generation(of: shared.type, by: ownerClient) == 2)
                try await writer.replicate()
                #expect(try await Self.generation(of: shared.type, by: writerClient) == 2)
                try await owner.replicate()
                try await writer.replicate()
                #expect(try await Self.generation(of: shared.type, by: ownerClient) == 2)
                #expect(try await Self.generation(of: shared.type, by: writerClient) == 2)
                let lost = await #expect(throws: SyncError.self) { try await revoked.replicate() }
                #expect(lost?.code == .accessRevoked)
                for store in [owned, written, taken] { await store.close() }
            }
        }
    }

    @Test("a server that names no generation and has no links route (built before rotation) replicates as before")
    func serverWithoutLinks() async throws {
        try await Self.withServer(engine: .sqlite) { server, client in
            let (ownerClient, memberClient) = (try await client("owner"), try await client("member"))
            try await withTemporaryDirectory { folder in
                let (owned, copy) = (try await Self.store(folder, "owner"), try await Self.store(folder, "member"))
                let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
                try await Self.write(2, "owner", to: owned)
                try await owner.replicate()
                try await owner.share(with: memberClient.configuration.clientID, access: .read)
                let shared = try await owner.sharedDatastore()
                // The proxy forwards no X-Strongroom-Key-Generation and answers the links route with 404.
                try await HostileServer.with(
                    upstream: try #require(URL(string: server.baseURL)),
                    tamper: { path, _, response in path.hasSuffix("/links") ? .notFound : .answer(response) }
                ) { proxy in
                    var through = memberClient.configuration
                    through.apiURL = proxy
                    let member = Replicator(
                        datastore: copy,
                        sharedDatastore: shared,
                        client: Client(configuration: through)
                    )
                    let report = try await member.replicate()
                    #expect(report.revisionsApplied == 2, "\(report)")
                }
                #expect(try await Self.contents(of: copy) == (try await Self.contents(of: owned)))
                for store in [owned, copy] { await store.close() }
            }
        }
    }
}
