// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSQLite
import StrongroomSync
import StrongroomTesting
import Testing

/// Channels and filters (issue 49): a channel is its own record type and key, so sharing it shares it alone — a
/// member without the other channel decrypts none of its revisions even from a copy of the server's database — and
/// a filter narrows what a replication pushes and applies.
@Suite struct ChannelTests {
    @Test("a member of one channel gets its documents only, and decrypts none of another's from the database file")
    func channelIsAKey() async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appending(path: "server-data")
            let server = try await ServerProcess(
                arguments: ["--data-directory", data.path, "--registration-token", ReplicatorTests.token]
            )
            defer { server.stop() }
            let url = try #require(URL(string: server.baseURL))
            let owner = Client(
                configuration: try await Client.register(token: ReplicatorTests.token, clientName: "o", apiURL: url)
            )
            let member = Client(
                configuration: try await Client.register(token: ReplicatorTests.token, clientName: "m", apiURL: url)
            )
            let owned = try await SharedDatastoreTests.store(folder, "owner")
            let copy = try await SharedDatastoreTests.store(folder, "member")
            let canary = "channel-canary-7f3e"
            _ = try await owned.createDocument(id: "menu", body: ["kind": "public", "text": "soup"])
            _ = try await owned.createDocument(id: "hours", body: ["kind": "public", "text": "9 to 5"])
            let secret = try await owned.createDocument(
                id: "payroll",
                body: ["kind": "private", "text": .string(canary)]
            )
            _ = try await owned.createDocument(id: "doomed", body: ["kind": "public"])

            let publicChannel = try ReplicationChannel(name: "public", selector: SelectorFilter(["kind": "public"]))
            let privateChannel = try ReplicationChannel(name: "private", selector: SelectorFilter(["kind": "private"]))
            let onPublic = Replicator(datastore: owned, name: "team", client: owner, channel: publicChannel)
            let onPrivate = Replicator(datastore: owned, name: "team", client: owner, channel: privateChannel)
            #expect(try await onPublic.replicate(.push).documentsPushed == 3)
            #expect(try await onPrivate.replicate(.push).documentsPushed == 1)
            // A tombstone follows its document into the channel; a deleted private document never reaches it.
            _ = try await owned.delete(from: try await owned.document(id: "doomed"))
            _ = try await owned.delete(from: secret)
            #expect(try await onPublic.replicate(.push).revisionsPushed == 1)
            #expect(try await onPrivate.replicate(.push).revisionsPushed == 1)

            let publicAddress = try await onPublic.sharedDatastore()
            let privateAddress = try await onPrivate.sharedDatastore()
            #expect(publicAddress.type != privateAddress.type)
            try await onPublic.share(with: member.configuration.clientID, access: .read)
            let theirs = Replicator(datastore: copy, sharedDatastore: publicAddress, client: member)
            #expect(try await theirs.replicate().revisionsApplied == 4, "menu, hours, doomed and its tombstone")
            #expect(try await copy.documentCount() == 2)
            await #expect(throws: DatastoreError.self) { try await copy.document(id: "payroll") }
            await #expect(throws: (any Error).self) {
                try await Replicator(datastore: copy, sharedDatastore: privateAddress, client: member).replicate()
            }

            // The member with a copy of the server's database file: the private channel's records are there, and no
            // key it holds opens a single one.
            let memberKey = try await member.sharedAccessKey(type: publicAddress.type, ownerID: publicAddress.ownerID)
            await #expect(throws: ClientError.self) {
                try await member.sharedAccessKey(type: privateAddress.type, ownerID: privateAddress.ownerID)
            }
            let dump = folder.appending(path: "dump.sqlite")
            try FileManager.default.copyItem(at: data.appending(path: "strongroom.sqlite"), to: dump)
            for suffix in ["-wal", "-shm"] {
                let side = data.appending(path: "strongroom.sqlite" + suffix)
                if FileManager.default.fileExists(atPath: side.path) {
                    try FileManager.default.copyItem(at: side, to: folder.appending(path: "dump.sqlite" + suffix))
                }
            }
            let database = try Connection(path: dump.path, key: nil)
            let rows = try database.prepare("SELECT data FROM records WHERE type = ?")
            try rows.bind(privateAddress.type, at: 1)
            var (records, opened) = (0, 0)
            while try rows.step() {
                records += 1
                let fields = try JSONDecoder().decode([String: String].self, from: Data((rows.text(at: 0) ?? "").utf8))
                if (try? FieldCipher.decrypt(fields: fields, with: memberKey)) != nil { opened += 1 }
            }
            #expect(records >= 3, "the private channel's revisions and its checkpoint record are in the file")
            #expect(opened == 0)
            #expect(try PlaintextScan.scan(data, for: [Data(canary.utf8)]).isEmpty)
            await owned.close()
            await copy.close()
        }
    }

    @Test("a filter pushes only the documents it matches and applies only the revisions it matches")
    func filteredReplication() async throws {
        try await PurgeReplicationTests.withClient { configuration, folder in
            let (laptop, phone, _, onPhone) = try await ReplicatorTests.devices(in: folder, configuration)
            let drafts = try SelectorFilter(["draft": true])
            let onLaptop = Replicator(
                datastore: laptop,
                name: "notes",
                client: Client(configuration: configuration),
                filter: try SelectorFilter(["draft": ["$ne": true]])
            )
            _ = try await laptop.createDocument(id: "final", body: ["draft": false])
            _ = try await laptop.createDocument(id: "sketch", body: ["draft": true])
            #expect(try await onLaptop.replicate().documentsPushed == 1)
            #expect(try await onPhone.replicate().revisionsApplied == 1)
            await #expect(throws: DatastoreError.self) { try await phone.document(id: "sketch") }
            // Discarding unpushed revisions leaves the draft the filter kept local: it was never an unpushed edit.
            #expect(try await onLaptop.discardUnpushedRevisions() == 0)
            #expect(try await laptop.document(id: "sketch").body == ["draft": true])

            // The phone pushes a draft and a final; a drafts-only pull on a third replica applies the draft only.
            _ = try await phone.createDocument(id: "idea", body: ["draft": true])
            try await onPhone.replicate()
            let tablet = try await DatastoreManager(directory: folder.appending(path: "tablet"))
                .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
            let onTablet = Replicator(
                datastore: tablet,
                name: "notes",
                client: Client(configuration: configuration),
                filter: drafts
            )
            #expect(try await onTablet.replicate(.pull).revisionsApplied == 1)
            #expect(try await tablet.document(id: "idea").body == ["draft": true])
            await #expect(throws: DatastoreError.self) { try await tablet.document(id: "final") }
            for store in [laptop, phone, tablet] { await store.close() }
        }
    }
}
