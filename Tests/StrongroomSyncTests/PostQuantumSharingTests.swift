// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSQLite
import StrongroomSync
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// Post-quantum sharing (docs/design/PostQuantum.md): access keys sealed with the X-Wing wrap beside X25519 by
/// default, with it alone under `require` and for replicated datastores — so a byte copy of the server's database
/// holds no wrap an X25519-only attacker opens — and a server that strips, re-targets or re-signs a wrap is refused.
@Suite struct PostQuantumSharingTests {
    static let token = "post-quantum"

    /// One row of `access_keys` as a byte copy of the database holds it.
    struct StoredWrap: Hashable {
        var readerID: String
        var eak: String
        var hybridEAK: String?
    }

    /// A server with its data directory in `folder`, and a way to register clients (`keys` nil: fresh ones).
    static func withServer(
        _ body: (_ url: URL, _ data: URL, _ folder: URL) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appending(path: "server-data")
            let server = try await ServerProcess(
                arguments: ["--data-directory", data.path, "--registration-token", token]
            )
            defer { server.stop() }
            try await body(try #require(URL(string: server.baseURL)), data, folder)
        }
    }

    static func register(_ url: URL, _ name: String, keys: ClientKeys = .generate()) async throws -> Client {
        Client(configuration: try await Client.register(token: token, clientName: name, apiURL: url, keys: keys))
    }

    /// A client registered with X25519 and Ed25519 keys only, as before post-quantum sharing.
    static func registerWithoutXWing(_ url: URL, _ name: String) async throws -> Client {
        let keys = ClientKeys.generate()
        return try await register(
            url,
            name,
            keys: ClientKeys(encryptionKey: keys.encryptionKey, signingKey: keys.signingKey)
        )
    }

    /// The access-key rows of `type` in a byte copy of the server's database (the file and its WAL, copied).
    static func dump(_ data: URL, type: String, into folder: URL) throws -> [StoredWrap] {
        let copy = folder.appending(path: "dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            let file = data.appending(path: "strongroom.sqlite" + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: copy.appending(path: "strongroom.sqlite" + suffix))
            }
        }
        let database = try Connection(path: copy.appending(path: "strongroom.sqlite").path, key: nil)
        let rows = try database.prepare("SELECT reader_id, eak, hybrid_eak FROM access_keys WHERE type = ?")
        try rows.bind(type, at: 1)
        var found: [StoredWrap] = []
        while try rows.step() {
            found.append(
                StoredWrap(
                    readerID: rows.text(at: 0) ?? "",
                    eak: rows.text(at: 1) ?? "",
                    hybridEAK: rows.isNull(at: 2) ? nil : rows.text(at: 2)
                )
            )
        }
        return found
    }

    static func code(_ body: () async throws -> Void) async -> ClientError.Code? {
        await ClientError.code(of: body)
    }

    static func id(_ client: Client) -> String { client.configuration.clientID.uuidString.lowercased() }

    @Test("prefer (the default): both wraps for a reader with an X-Wing key, X25519 alone for one without; both read")
    func prefer() async throws {
        try await Self.withServer { url, data, folder in
            let writer = try await Self.register(url, "writer")
            let reader = try await Self.register(url, "reader")
            let older = try await Self.registerWithoutXWing(url, "older")
            let record = try await writer.write(type: "pq-prefer", data: ["n": "1"])
            for other in [reader, older] {
                try await writer.share(type: "pq-prefer", readerID: other.configuration.clientID)
                #expect(try await other.read(recordID: record.meta.recordID).data["n"] == "1")
            }
            let stored = Dictionary(
                uniqueKeysWithValues: try Self.dump(data, type: "pq-prefer", into: folder).map { ($0.readerID, $0) }
            )
            #expect(stored.count == 3)
            for client in [writer, reader] {
                let row = try #require(stored[Self.id(client)])
                #expect(!row.eak.isEmpty && row.hybridEAK?.utf8.count == AccessKeyPutRequest.hybridEAKCharacters)
            }
            let row = try #require(stored[Self.id(older)])
            #expect(!row.eak.isEmpty && row.hybridEAK == nil)
        }
    }

    @Test(
        "require: no X25519 wrap in a byte copy of the database; a rotation encapsulates afresh; a reader without an X-Wing key gets nothing"
    )
    func require() async throws {
        try await Self.withServer { url, data, folder in
            let type = "pq-secret"
            var configuration = try await Client.register(token: Self.token, clientName: "writer", apiURL: url)
            configuration.postQuantum.modes[type] = .require
            let writer = Client(configuration: configuration)
            let reader = try await Self.register(url, "reader")
            let leaving = try await Self.register(url, "leaving")
            let older = try await Self.registerWithoutXWing(url, "older")
            var records: [UUID] = []
            for index in 0..<3 {
                records.append(try await writer.write(type: type, data: ["n": "\(index)"]).meta.recordID)
            }
            for other in [reader, leaving] {
                try await writer.share(type: type, readerID: other.configuration.clientID)
            }
            #expect(
                await Self.code { try await writer.share(type: type, readerID: older.configuration.clientID) }
                    == .postQuantumKeyMissing
            )
            // Offline (e3db-swift's EAKInfo): the wrap travels in it and opens for the writer and for the reader.
            let writerInfo = try await writer.createWriterKey(type: type)
            #expect(writerInfo.eak.isEmpty && writerInfo.hybridEAK != nil && writerInfo.generation == 1)
            let document = try writer.encrypt(type: type, data: ["offline": "yes"], eakInfo: writerInfo)
            let readerInfo = try await reader.getReaderKey(
                writerID: writer.configuration.clientID,
                userID: writer.configuration.clientID,
                type: type
            )
            #expect(try reader.decrypt(encryptedDocument: document, eakInfo: readerInfo) == ["offline": "yes"])
            var stripped = readerInfo
            stripped.hybridEAK = nil
            #expect(
                await Self.code { _ = try reader.decrypt(encryptedDocument: document, eakInfo: stripped) } == .tampered
            )
            let before = try Self.dump(data, type: type, into: folder)
            #expect(Set(before.map(\.readerID)) == Set([writer, reader, leaving].map(Self.id)), "none for older")
            #expect(await Self.code { _ = try await older.read(recordID: records[0]) } == .forbidden)

            // A revoke rotates: generation 2, sealed afresh to each remaining reader.
            let report = try #require(try await writer.revoke(type: type, readerID: leaving.configuration.clientID))
            #expect(report.generation == 2)
            let after = try Self.dump(data, type: type, into: folder)
            #expect(Set(after.map(\.readerID)) == Set([writer, reader].map(Self.id)))
            #expect(Set(after.compactMap(\.hybridEAK)).isDisjoint(with: before.compactMap(\.hybridEAK)))
            for row in before + after {
                #expect(row.eak.isEmpty, "an X25519 wrap of \(row.readerID) is in the database")
                #expect(row.hybridEAK.flatMap { try? HybridAccessKeyWrap(wireFormat: $0) } != nil)
            }
            for recordID in records { _ = try await reader.read(recordID: recordID) }
            _ = try await writer.write(type: type, data: ["n": "after"])
            let page = try await reader.query(
                QueryParams(count: 10, types: [type], writerIDs: [writer.configuration.clientID])
            )
            #expect(Set(page.records.compactMap { $0.data["n"] }) == ["0", "1", "2", "after"])
        }
    }

    @Test("a replicated datastore's types are require from their first generation: members sync through X-Wing alone")
    func replicatedDatastore() async throws {
        try await Self.withServer { url, data, folder in
            let ownerClient = try await Self.register(url, "owner")
            let memberClient = try await Self.register(url, "member")
            let owned = try await SharedDatastoreTests.store(folder, "owner")
            let owner = Replicator(datastore: owned, name: "team", client: ownerClient)
            _ = try await owned.createDocument(id: "menu", body: ["text": "soup"])
            try await owner.replicate()
            try await owner.share(with: memberClient.configuration.clientID, access: .read)
            let shared = try await owner.sharedDatastore()
            let copy = try await SharedDatastoreTests.store(folder, "member")
            let member = Replicator(datastore: copy, sharedDatastore: shared, client: memberClient)
            _ = try await member.replicate()
            #expect(try await copy.document(id: "menu").body["text"] == "soup")
            let rows = try Self.dump(data, type: shared.type, into: folder)
            #expect(rows.count >= 2, "the owner's and the member's at least")
            #expect(rows.allSatisfy { $0.eak.isEmpty && $0.hybridEAK != nil })
            await owned.close()
            await copy.close()
        }
    }

    @Test(
        "a server that strips, re-targets or re-signs the post-quantum wrap, or answers for another authorizer: refused, nothing opened"
    )
    func hostileServer() async throws {
        try await Self.withServer { url, _, _ in
            let writer = try await Self.register(url, "writer")
            var registered = try await Client.register(token: Self.token, clientName: "reader", apiURL: url)
            registered.postQuantum.modes["pq-strict"] = .require
            let strict = registered
            let sybil = try await Self.register(url, "sybil")
            let record = try await writer.write(type: "pq-strict", data: ["n": "1"])
            _ = try await writer.write(type: "pq-other", data: ["n": "2"])
            for type in ["pq-strict", "pq-other"] {
                try await writer.share(type: type, readerID: strict.clientID)
            }
            let honest = Client(configuration: strict)
            #expect(try await honest.read(recordID: record.meta.recordID).data["n"] == "1")
            let readerKey = { (type: String) in
                E3DBPath.accessKey.render(
                    Self.id(writer),
                    Self.id(writer),
                    strict.clientID.uuidString.lowercased(),
                    type
                )
            }
            let other = try await honest.authenticated(
                .GET,
                readerKey("pq-other"),
                success: [200],
                as: AccessKeyResponse.self
            )
            let attacks: [(String, @Sendable (inout [String: Any]) -> Void)] = [
                ("stripped", { $0["hybrid_eak"] = nil }),
                ("re-targeted", { [other] in $0["hybrid_eak"] = other.hybridEAK }),
                (
                    "re-signed",
                    { body in
                        let text = body["hybrid_eak"] as? String ?? ""
                        body["hybrid_eak"] = String(text.dropLast(4)) + (text.hasSuffix("AAAA") ? "BBBB" : "AAAA")
                    }
                ),
                ("another authorizer", { [sybil] in $0["authorizer_id"] = Self.id(sybil) }),
            ]
            for (name, attack) in attacks {
                let strictPath = readerKey("pq-strict")
                try await HostileServer.with(
                    upstream: url,
                    tamper: { path, _, response in
                        guard path == strictPath,
                            var body = try? JSONSerialization.jsonObject(with: response) as? [String: Any]
                        else { return .answer(response) }
                        attack(&body)
                        return .answer((try? JSONSerialization.data(withJSONObject: body)) ?? response)
                    }
                ) { proxy in
                    var through = strict
                    through.apiURL = proxy
                    let code = await Self.code {
                        _ = try await Client(configuration: through).read(recordID: record.meta.recordID)
                    }
                    #expect(code == .tampered, "\(name)")
                }
            }
        }
    }
}
