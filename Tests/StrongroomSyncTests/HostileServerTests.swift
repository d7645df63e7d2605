// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

/// Replication proof 3 (issue 48): a malicious or broken server is caught, not trusted. A proxy in front of a real
/// server alters, swaps, replays, re-attributes, strips and withholds revision records on their way to a pulling
/// device; every change is refused with a typed error before anything of its page is applied, and an honest pull
/// afterwards brings everything, once.
@Suite struct HostileServerTests {
    static let token = "hostile-test-token"

    /// One thing a hostile server does to a search answer, and the error the replicator must answer it with.
    struct Attack: Sendable, CustomStringConvertible {
        var description: String
        var expected: SyncError.Code?
        var change: @Sendable (inout [String: Any]) -> Void
    }

    /// Rewrites a search answer's result list.
    @Sendable static func results(_ object: inout [String: Any], _ body: (inout [[String: Any]]) -> Void) {
        var list = object["results"] as? [[String: Any]] ?? []
        body(&list)
        object["results"] = list
    }

    static func attacks(otherWriter: String) -> [Attack] {
        return [
            Attack(description: "a ciphertext byte altered", expected: .tampered) { object in
                Self.results(&object) { list in
                    var data = list[0]["record_data"] as? [String: String] ?? [:]
                    let field = data.keys.sorted()[0]
                    var parts = data[field, default: ""].split(separator: ".", omittingEmptySubsequences: false)
                        .map(String.init)
                    var bytes = Array(parts[2].utf8)
                    bytes[bytes.count / 2] =
                        bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                    parts[2] = String(decoding: bytes, as: UTF8.self)
                    data[field] = parts.joined(separator: ".")
                    list[0]["record_data"] = data
                }
            },
            Attack(description: "ciphertexts swapped between two documents' records", expected: .tampered) { object in
                Self.results(&object) { list in
                    (list[0]["record_data"], list[1]["record_data"]) = (list[1]["record_data"], list[0]["record_data"])
                }
            },
            Attack(description: "records and signatures swapped, tags kept", expected: .tampered) { object in
                Self.results(&object) { list in
                    (list[0]["record_data"], list[1]["record_data"]) = (list[1]["record_data"], list[0]["record_data"])
                    (list[0]["rec_sig"], list[1]["rec_sig"]) = (list[1]["rec_sig"], list[0]["rec_sig"])
                }
            },
            Attack(description: "blind tags swapped between records", expected: .tampered) { object in
                Self.results(&object) { list in
                    var (first, second) = (
                        list[0]["meta"] as? [String: Any] ?? [:], list[1]["meta"] as? [String: Any] ?? [:]
                    )
                    (first["plain"], second["plain"]) = (second["plain"], first["plain"])
                    (list[0]["meta"], list[1]["meta"]) = (first, second)
                }
            },
            Attack(description: "a record replayed under another record's tags, unsigned", expected: .tampered) {
                object in
                Self.results(&object) { list in
                    var copy = list[0]
                    var meta = copy["meta"] as? [String: Any] ?? [:]
                    meta["plain"] = (list[1]["meta"] as? [String: Any])?["plain"]
                    meta["record_id"] = UUID().uuidString.lowercased()
                    copy["meta"] = meta
                    copy["rec_sig"] = nil
                    list.append(copy)
                }
            },
            Attack(description: "a record's signature stripped", expected: .tampered) { object in
                Self.results(&object) { list in list[0]["rec_sig"] = nil }
            },
            Attack(
                description: "every record attributed to a client that is no member (left out, as if withheld)",
                expected: nil
            ) { object in
                Self.results(&object) { list in
                    for index in list.indices {
                        var meta = list[index]["meta"] as? [String: Any] ?? [:]
                        meta["writer_id"] = otherWriter
                        list[index]["meta"] = meta
                    }
                }
            },
            Attack(description: "a changes feed that does not move", expected: .invalidResponse) { object in
                object["last_index"] = 0
            },
            Attack(description: "a changes feed that runs backwards", expected: .invalidResponse) { object in
                object["last_index"] = -7
            },
            Attack(description: "every record withheld (not detectable: nothing applied, nothing lost)", expected: nil)
            {
                object in object["results"] = [[String: Any]]()
            },
        ]
    }

    @Test("altered, swapped, replayed, re-attributed, unsigned and stuck answers are refused; nothing is applied")
    func hostileAnswersRefused() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "victim", apiURL: url)
            let other = try await Client.register(token: Self.token, clientName: "other", apiURL: url)
            try await withTemporaryDirectory { folder in
                let laptop = try await DatastoreManager(directory: folder.appending(path: "laptop"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let first = try await laptop.createDocument(id: "alpha", body: ["n": 1])
                _ = try await laptop.update(from: first, body: ["n": 2])
                _ = try await laptop.createDocument(id: "beta", body: ["n": 3])
                let gone = try await laptop.createDocument(id: "gamma", body: ["n": 4])
                _ = try await laptop.delete(from: gone)
                let honest = Client(configuration: configuration)
                #expect(
                    try await Replicator(datastore: laptop, name: "notes", client: honest).replicate(.push)
                        .revisionsPushed == 3
                )
                await laptop.close()

                // A fresh replica for each attack: one that only withholds may move its checkpoint.
                for (number, attack) in Self.attacks(otherWriter: other.clientID.uuidString.lowercased()).enumerated() {
                    let phone = try await DatastoreManager(directory: folder.appending(path: "phone\(number)"))
                        .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                    try await HostileServer.with(upstream: url, tamper: HostileServer.rewritingSearch(attack.change)) {
                        proxy in
                        var through = configuration
                        through.apiURL = proxy
                        let replicator = Replicator(
                            datastore: phone,
                            name: "notes",
                            client: Client(configuration: through)
                        )
                        if let expected = attack.expected {
                            let error = await #expect(throws: SyncError.self, "\(attack)") {
                                try await replicator.replicate(.pull)
                            }
                            #expect(error?.code == expected, "\(attack): \(String(describing: error))")
                        } else {
                            let report = try await replicator.replicate(.pull)
                            #expect(report.revisionsApplied == 0, "\(attack)")
                        }
                    }
                    #expect(try await phone.documentCount() == 0, "\(attack): something was applied")
                    if attack.expected != nil {
                        // The checkpoint never moved: an honest server brings every revision, once. (The proxy was
                        // another server to the datastore: it is moved back on purpose.)
                        let back = Replicator(datastore: phone, name: "notes", client: honest)
                        try await back.rehome()
                        let report = try await back.replicate(.pull)
                        #expect(report.revisionsApplied == 3, "\(attack): \(report)")
                    }
                    await phone.close()
                }
                let phone = try await DatastoreManager(directory: folder.appending(path: "phone"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                let replicator = Replicator(datastore: phone, name: "notes", client: honest)
                let report = try await replicator.replicate(.pull)
                #expect(report.revisionsApplied == 3, "\(report)")
                #expect(try await phone.document(id: "alpha").body == ["n": 2])
                #expect(try await replicator.replicate(.pull).revisionsApplied == 0)
                await phone.close()
            }
        }
    }

    @Test(
        "a server that acknowledges a push and drops it: the writer's next sync finds it and pushes it again; honest syncs and a purge elsewhere count nothing"
    )
    func droppedAfterAcknowledgement() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "dropped", apiURL: url)
            // While `dropping`, every bulk write is answered "stored" and never reaches the server.
            let dropping = Mutex(false)
            let intercept: HostileServer.Intercept = { method, path, body in
                guard dropping.withLock({ $0 }), method == "POST", path == "/v2/sync/bulk",
                    let request = try? JSONDecoder().decode(SyncBulkRequest.self, from: body)
                else { return nil }
                let outcomes = request.records.map {
                    SyncBulkResponse.Outcome(
                        tag: $0.meta.plain?["sr.r"] ?? "",
                        recordID: UUID().uuidString.lowercased(),
                        created: true
                    )
                }
                return try? JSONEncoder().encode(SyncBulkResponse(records: outcomes))
            }
            try await withTemporaryDirectory { folder in
                try await HostileServer.with(
                    upstream: url,
                    intercept: intercept,
                    tamper: { _, _, response in .answer(response) }
                ) { proxy in
                    var through = configuration
                    through.apiURL = proxy
                    let client = Client(configuration: through)
                    let open = { (name: String) in
                        try await DatastoreManager(directory: folder.appending(path: name))
                            .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                    }
                    let laptop = try await open("laptop")
                    let replicator = Replicator(datastore: laptop, name: "notes", client: client)
                    _ = try await laptop.createDocument(id: "kept", body: ["n": 1])
                    #expect(try await replicator.replicate().revisionsLostByServer == 0)
                    _ = try await laptop.createDocument(id: "dropped", body: ["n": 2])
                    dropping.withLock { $0 = true }
                    let acknowledged = try await replicator.replicate(.push)
                    #expect(acknowledged.revisionsPushed == 1 && acknowledged.revisionsLostByServer == 0)
                    dropping.withLock { $0 = false }
                    // The next sync finds the acknowledged revision missing: counted, and pushed again.
                    let found = try await replicator.replicate()
                    #expect(found.revisionsLostByServer == 1 && found.revisionsPushed == 1, "\(found)")
                    #expect(try await replicator.replicate().revisionsLostByServer == 0)

                    // A second replica gets both documents; its purge of one is not the server's loss.
                    let phone = try await open("phone")
                    let other = Replicator(datastore: phone, name: "notes", client: client)
                    #expect(try await other.replicate(.pull).revisionsApplied == 2)
                    _ = try await laptop.createDocument(id: "purged", body: ["n": 3])
                    #expect(try await replicator.replicate().revisionsPushed == 1)
                    _ = try await other.replicate(.pull)
                    #expect(try await other.purge(["purged"]) == 1)
                    let afterPurge = try await replicator.replicate()
                    #expect(afterPurge.revisionsLostByServer == 0 && afterPurge.revisionsPurged == 1, "\(afterPurge)")
                    #expect(try await laptop.documentCount() == 2)
                    await phone.close()
                    await laptop.close()
                }
            }
        }
    }

    @Test("an attachment body swapped for another the same client uploaded is refused; nothing of the page is applied")
    func swappedAttachmentBody() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", Self.token]) {
            server,
            _ in
            let url = try #require(URL(string: server.baseURL))
            let configuration = try await Client.register(token: Self.token, clientName: "victim", apiURL: url)
            try await withTemporaryDirectory { folder in
                let laptop = try await DatastoreManager(directory: folder.appending(path: "laptop"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                for (docID, text) in [("first", "the first body"), ("second", "another body entirely")] {
                    let created = try await laptop.createDocument(id: docID, body: [:])
                    _ = try await laptop.addAttachment(
                        named: "a.txt",
                        contentType: "text/plain",
                        to: created,
                        contents: AsyncStream {
                            $0.yield(Array(text.utf8)); $0.finish()
                        }
                    )
                }
                let honest = Client(configuration: configuration)
                try await Replicator(datastore: laptop, name: "notes", client: honest).replicate(.push)
                await laptop.close()

                // The server answers every file request after the first with the first file's record.
                let first = Mutex<Data?>(nil)
                let swap: HostileServer.Tamper = { path, _, response in
                    guard path.hasPrefix("/v1/storage/files/") else { return .answer(response) }
                    return .answer(
                        first.withLock { stored -> Data in
                            if let stored { return stored }
                            stored = response
                            return response
                        }
                    )
                }
                let phone = try await DatastoreManager(directory: folder.appending(path: "phone"))
                    .datastore(named: "notes", keyProvider: SimpleKeyProvider(key: EncryptionKey.random()))
                try await HostileServer.with(upstream: url, tamper: swap) { proxy in
                    var through = configuration
                    through.apiURL = proxy
                    let replicator = Replicator(datastore: phone, name: "notes", client: Client(configuration: through))
                    let error = await #expect(throws: SyncError.self) { try await replicator.replicate(.pull) }
                    #expect(error?.code == .tampered, "\(String(describing: error))")
                }
                #expect(try await phone.documentCount() == 0)
                // The staged bodies are gone; an honest server brings both documents and their attachments.
                let staged = try FileManager.default.contentsOfDirectory(
                    atPath: folder.appending(path: "phone/notes/attachments").path
                )
                #expect(staged.isEmpty, "\(staged)")
                let back = Replicator(datastore: phone, name: "notes", client: honest)
                try await back.rehome()  // the proxy was another server to the datastore
                #expect(try await back.replicate(.pull).revisionsApplied == 2)
                await phone.close()
            }
        }
    }
}
