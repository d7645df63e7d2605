// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import Testing

/// A purge propagates (docs/design/Replication.md, slice 7): the purging device's signed marker makes every other
/// replica forget the document, its records leave the server, a replica that had not heard of it and sends it again
/// does not bring it back, and an edit made where the purge was not yet known survives.
@Suite struct PurgeReplicationTests {
    /// A server, a registered client and a folder for its devices' datastores.
    static func withClient(_ body: (Client.Configuration, URL) async throws -> Void) async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", ReplicatorTests.token])
        {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(
                token: ReplicatorTests.token,
                clientName: "purge",
                apiURL: url
            )
            try await withTemporaryDirectory { folder in try await body(configuration, folder) }
        }
    }

    @Test("a purged document is forgotten by every replica and the server; a stale re-send does not bring it back")
    func purgePropagates() async throws {
        try await Self.withClient { configuration, folder in
            let (laptop, phone, onLaptop, onPhone) = try await ReplicatorTests.devices(in: folder, configuration)
            let tablet = try await DatastoreManager(directory: folder.appending(path: "tablet"))
                .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
            let onTablet = Replicator(
                datastore: tablet,
                name: "notes",
                client: Client(configuration: configuration)
            )
            var secret = try await laptop.createDocument(id: "secret", body: ["pin": "1234"])
            secret = try await laptop.update(from: secret, body: ["pin": "9876"])
            _ = try await laptop.createDocument(id: "kept", body: ["x": 1])
            try await onLaptop.replicate()
            try await onPhone.replicate()
            try await onTablet.replicate()
            #expect(try await phone.document(id: "secret").body == ["pin": "9876"])

            // The laptop purges; the server no longer holds a revision record of the document.
            #expect(try await onLaptop.purge(["secret", "unknown"]) == 2)
            await #expect(throws: DatastoreError.self) { try await laptop.document(id: "secret") }
            let client = Client(configuration: configuration)
            let type = try ReplicatorTests.notesType(of: configuration)
            func revisionRecords() async throws -> Int {
                try await client.query(QueryParams(count: 1_000, types: [type], includesData: false)).records
                    .filter { $0.meta.plain[RevisionRecord.PlainKey.revisionTag] != nil }.count
            }
            #expect(try await revisionRecords() == 1, "only kept's revision")

            // The tablet had not heard of it and pushes first: the purged leaf goes up again …
            #expect(try await onTablet.replicate(.push).revisionsPushed == 1)
            // … the phone pulls the marker and does not take the re-sent leaf back …
            let phoneReport = try await onPhone.replicate()
            #expect(phoneReport.revisionsPurged == 2 && phoneReport.revisionsApplied == 0, "\(phoneReport)")
            await #expect(throws: DatastoreError.self) { try await phone.document(id: "secret") }
            // … and the tablet forgets it on its pull and removes what it sent again from the server.
            #expect(try await onTablet.replicate(.pull).revisionsPurged == 2)
            await #expect(throws: DatastoreError.self) { try await tablet.document(id: "secret") }
            #expect(try await revisionRecords() == 1)
            #expect(try await onLaptop.replicate().revisionsApplied == 0)
            await #expect(throws: DatastoreError.self) { try await laptop.document(id: "secret") }

            // A new device never sees the document; the others still have "kept".
            let fresh = try await DatastoreManager(directory: folder.appending(path: "fresh"))
                .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
            let onFresh = Replicator(datastore: fresh, name: "notes", client: Client(configuration: configuration))
            #expect(try await onFresh.replicate().revisionsApplied == 1)
            await #expect(throws: DatastoreError.self) { try await fresh.document(id: "secret") }
            for store in [laptop, phone, tablet, fresh] {
                #expect(try await store.document(id: "kept").body == ["x": 1])
                await store.close()
            }
        }
    }

    @Test("an edit made where the purge was not yet known survives, with its ancestry, on every replica")
    func concurrentEditSurvives() async throws {
        try await Self.withClient { configuration, folder in
            let (laptop, phone, onLaptop, onPhone) = try await ReplicatorTests.devices(in: folder, configuration)
            let draft = try await laptop.createDocument(id: "draft", body: ["v": 1])
            try await onLaptop.replicate()
            try await onPhone.replicate()
            // Offline, the phone edits the draft while the laptop purges it.
            let edited = try await phone.update(from: try await phone.document(id: "draft"), body: ["v": 2])
            #expect(try await onLaptop.purge(["draft"]) == 1)
            let report = try await onPhone.replicate()
            #expect(report.revisionsPurged == 0, "the purged revision is the edit's ancestor: it stays")
            #expect(try await phone.document(id: "draft").revID == edited.revID)
            #expect(try await onLaptop.replicate().revisionsApplied == 1)
            let back = try await laptop.document(id: "draft")
            #expect(back.revID == edited.revID && back.body == ["v": 2])
            #expect(try await laptop.revisionHistory(of: back).map(\.revID) == [edited.revID, draft.revID])
            await laptop.close()
            await phone.close()
        }
    }
}
