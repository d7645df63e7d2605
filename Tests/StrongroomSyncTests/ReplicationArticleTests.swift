// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import Testing

/// Runs every snippet of the DocC articles "How replication works" and "Porting from CDTDatastore's replicator" as
/// written, against a real server, and checks the articles quote them.
@Suite struct ReplicationArticleTests {
    static let token = "article-token"

    @Test("the replication articles' snippets run: replicate with progress, resolve a conflict, events, stop")
    func snippets() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "article", apiURL: url)
            let client = Client(configuration: configuration)
            try await withTemporaryDirectory { folder in
                let laptop = try await DatastoreManager(directory: folder.appending(path: "laptop"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let phone = try await DatastoreManager(directory: folder.appending(path: "phone"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let onLaptop = Replicator(datastore: laptop, name: "notes", client: client)
                let shared = try await laptop.createDocument(id: "shared", body: ["title": "first"])
                try await onLaptop.replicate()

                // porting: how-replicate
                let replicator = Replicator(datastore: phone, name: "notes", client: client)
                let report = try await replicator.replicate(.both) { event in
                    if case .pulled(let soFar) = event { print("applied \(soFar.revisionsApplied) so far") }
                }
                print(report.revisionsPushed, report.revisionsPulled, report.revisionsApplied, report.duration)
                // end porting
                #expect(report.revisionsApplied == 1)

                // Both edit the same revision apart, then replicate: the phone sees the conflict.
                _ = try await laptop.update(from: shared, body: ["title": "laptop"])
                _ = try await phone.update(from: try await phone.document(id: "shared"), body: ["title": "phone"])
                try await replicator.replicate()
                try await onLaptop.replicate()
                try await replicator.replicate()
                #expect(try await phone.conflictedDocumentIDs() == ["shared"])

                // porting: how-conflicts
                for id in try await phone.conflictedDocumentIDs() {
                    // Keep the winner, retire the others.
                    try await phone.resolveConflicts(docID: id) { leaves in leaves.first }
                }
                try await replicator.replicate()  // the resolution replicates like any edit
                // end porting
                try await onLaptop.replicate()
                #expect(try await laptop.conflictedDocumentIDs().isEmpty)
                let (onBoth, onPhone) = (
                    try await laptop.document(id: "shared"), try await phone.document(id: "shared")
                )
                #expect(onBoth.revID == onPhone.revID && onBoth.body == onPhone.body)

                _ = try await laptop.createDocument(id: "later", body: ["n": 1])
                try await onLaptop.replicate()
                var completed: ReplicationReport?
                // porting: cdt-events
                for try await event in replicator.events(.pull) {
                    switch event {
                    case .pushed(let soFar), .pulled(let soFar): print("progress:", soFar.revisionsPulled)
                    case .completed(let report): print("complete:", report.revisionsApplied, "new revisions")
                    case .idle, .offline: break  // only in live replication: events(.both, continuous: true)
                    }
                }
                // end porting
                for try await event in replicator.events(.pull) {
                    if case .completed(let report) = event { completed = report }
                }
                #expect(completed?.revisionsApplied == 0, "the first sequence applied the new revision")
                #expect((try? await phone.document(id: "later")) != nil)

                _ = try await laptop.createDocument(id: "draft", body: ["pin": 1])
                try await onLaptop.replicate()
                try await replicator.replicate()
                // porting: how-purge
                try await onLaptop.purge(["draft"])  // gone here and on the server; on the phone at its next pull
                let pulled = try await replicator.replicate()
                print(pulled.revisionsPurged, "revisions purged elsewhere are gone here too")
                // end porting
                #expect(pulled.revisionsPurged == 1)
                await #expect(throws: DatastoreError.self) { try await phone.document(id: "draft") }

                // porting: cdt-stop
                let running = Task { try await replicator.replicate() }
                running.cancel()  // CDTReplicator's stop: pages already applied stay, with their checkpoint
                _ = try? await running.value
                // end porting
                await laptop.close()
                await phone.close()
            }
        }
    }

    @Test("each replication article quotes its tested snippets verbatim, and every snippet is tested")
    func articlesMatchTests() throws {
        for (article, prefix, count) in [
            ("Sources/StrongroomSync/Documentation.docc/HowReplicationWorks.md", "how-", 3),
            ("Sources/StrongroomSync/Documentation.docc/PortingFromCDTReplicator.md", "cdt-", 2),
        ] {
            let (quoted, all) = try ArticleSnippets.compare(article: article, testFile: #filePath)
            let tested = all.filter { $0.key.hasPrefix(prefix) }
            #expect(tested.count == count, "\(article)")
            #expect(Set(quoted.keys) == Set(tested.keys), "\(article)")
            for (name, code) in tested { #expect(quoted[name] == code, "\(article): snippet \(name)") }
        }
    }
}
