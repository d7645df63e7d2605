// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import StrongroomCore
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The server's key log: leaves appended with the changes they record, checkpoints signed, every proof checked with
/// the client-side verifiers, on both engines.
@Suite struct KeyLogServerTests {
    /// A checkpoint answer, verified: its note signed by the key it names, its text a checkpoint.
    static func checkpoint(_ api: API) async throws -> (LogCheckpoint, NoteVerifierKey) {
        let response = try await api.request(.get, "/v2/keylog/checkpoint")
        #expect(response.status == .ok)
        let answer = try decode(KeyLogCheckpointResponse.self, response)
        let key = try NoteVerifierKey(answer.verifierKey)
        #expect(key.name.hasPrefix("strongroom.keylog/"))
        return (try verify(answer.checkpoint, key), key)
    }

    static func verify(_ note: String, _ key: NoteVerifierKey) throws -> LogCheckpoint {
        let parsed = try SignedNote(parsing: note)
        #expect(try parsed.verified(by: [key]) == [key])
        let checkpoint = try LogCheckpoint(text: parsed.text)
        #expect(checkpoint.origin == key.name)
        #expect(checkpoint.extensions.count == 1 && checkpoint.extensions[0].hasPrefix("timestamp "))
        return checkpoint
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    static func hashes(_ texts: [String]) throws -> [MerkleHash] {
        try texts.map { text in
            guard let data = Data(base64Encoded: text), let hash = MerkleHash(bytes: data) else {
                throw TestFailure("not a hash: \(text)")
            }
            return hash
        }
    }

    static func entry(_ text: String) throws -> KeyLogEntry {
        guard let data = Data(base64Encoded: text) else { throw TestFailure("not base64: \(text)") }
        return try KeyLogEntry(decoding: data)
    }

    @Test(
        "registrations and sharing are logged; lookups, histories and commitments carry proofs that verify",
        arguments: TestEngine.available
    )
    func logged(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let (empty, key) = try await Self.checkpoint(api)
            #expect(empty.size == 1, "the backup client (an X25519 key, no signing key) is the first leaf")
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let authorizer = try await api.register("authorizer")
            let (registered, _) = try await Self.checkpoint(api)
            #expect(registered.size == 4)

            // The client lookup proves the reader's keys.
            let lookup = try await api.request(
                .get,
                "/v1/storage/clients/\(reader.clientID)",
                authorization: "Bearer \(writer.token)"
            )
            let info = try Self.decode(ClientInfo.self, lookup)
            let inclusion = try #require(info.keyLog)
            let entry = try Self.entry(inclusion.entry)
            #expect(entry.kind == .registered && entry.clientID.uuidString.lowercased() == reader.clientID)
            #expect(entry.keys?.encryption.base64URLEncoded == reader.keys.encryptionKey.publicKey.base64URLEncoded)
            #expect(entry.keys?.signing?.base64URLEncoded == reader.keys.signingKey.publicKey.base64URLEncoded)
            let seen = try Self.verify(inclusion.checkpoint, key)
            try MerkleProof.verifyInclusion(
                leaf: entry.leafHash,
                index: inclusion.index,
                treeSize: seen.size,
                proof: try Self.hashes(inclusion.proof),
                root: seen.root
            )

            // Sharing: the EAK grant, an authorizer grant, the EAK's revocation. Sharing again with the same EAK
            // logs nothing; a read policy is not a key grant.
            let accessKey = AccessKey()
            let type = "keylog-test"
            try await api.share(type, from: writer, to: reader, accessKey: accessKey)
            let eakPath = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(reader.clientID)/\(type)"
            let eak = accessKey.sealed(to: reader.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
            let again = try await api.request(
                .put,
                eakPath,
                token: writer.token,
                json: AccessKeyPutRequest(eak: eak.wireFormat)
            )
            #expect(again.status == .created)
            let authorizerPath =
                "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(authorizer.clientID)/\(type)"
            let appoint = try await api.request(
                .put,
                authorizerPath,
                token: writer.token,
                json: PolicyRequest(allow: [.init(authorizer: [:])])
            )
            #expect(appoint.status == .created)
            let revoke = try await api.request(.delete, eakPath, authorization: "Bearer \(writer.token)")
            #expect(revoke.status == .noContent)
            let (shared, _) = try await Self.checkpoint(api)
            #expect(
                shared.size == 8,
                "4 registrations, 2 EAK grants (the first and the changed one), 1 authorizer, 1 revoke"
            )

            // The writer sees every commitment it made; the reader sees its two grants and the revocation.
            let mine = try Self.decode(
                KeyLogCommitmentsResponse.self,
                try await api.request(.get, "/v2/keylog/commitments", authorization: "Bearer \(writer.token)")
            )
            #expect(mine.commitments.map(\.leaf.index) == [4, 5, 6, 7])
            let theirs = try Self.decode(
                KeyLogCommitmentsResponse.self,
                try await api.request(.get, "/v2/keylog/commitments", authorization: "Bearer \(reader.token)")
            )
            #expect(theirs.commitments.map(\.leaf.index) == [4, 5, 7])
            let later = try Self.decode(
                KeyLogCommitmentsResponse.self,
                try await api.request(
                    .get,
                    "/v2/keylog/commitments?after=5",
                    authorization: "Bearer \(reader.token)"
                )
            )
            #expect(later.commitments.map(\.leaf.index) == [7])
            let against = try Self.verify(mine.checkpoint, key)
            var kinds: [KeyLogEntry.Kind] = []
            for opened in mine.commitments {
                let entry = try Self.entry(opened.leaf.entry)
                kinds.append(entry.kind)
                let salt = try #require(Data(base64Encoded: opened.salt))
                let writerID = try #require(UUID(uuidString: opened.writerID))
                let partyID = try #require(UUID(uuidString: opened.partyID))
                let userID = UUID(uuidString: opened.userID ?? "")
                let expected =
                    entry.kind == .authorizerGranted
                    ? try KeyLogCommitment.authorizer(
                        entry.kind,
                        writer: writerID,
                        authorizer: partyID,
                        type: opened.type,
                        salt: salt
                    )
                    : try KeyLogCommitment.access(
                        entry.kind,
                        writer: writerID,
                        user: try #require(userID),
                        reader: partyID,
                        type: opened.type,
                        salt: salt
                    )
                #expect(entry.commitment == expected)
                #expect(entry.clientID == KeyLogEntry.unnamed, "the writer is inside the commitment, not in clear")
                try MerkleProof.verifyInclusion(
                    leaf: entry.leafHash,
                    index: opened.leaf.index,
                    treeSize: against.size,
                    proof: try Self.hashes(try #require(opened.leaf.proof)),
                    root: against.root
                )
            }
            #expect(kinds == [.accessGranted, .accessGranted, .authorizerGranted, .accessRevoked])

            // The log only grew: consistent with the first checkpoints.
            for old in [empty, registered] {
                let proof = try Self.decode(
                    KeyLogProofResponse.self,
                    try await api.request(.get, "/v2/keylog/proof/consistency?old=\(old.size)&new=\(shared.size)")
                )
                try MerkleProof.verifyConsistency(
                    oldSize: old.size,
                    newSize: shared.size,
                    oldRoot: old.root,
                    newRoot: shared.root,
                    proof: try Self.hashes(proof.proof)
                )
            }
            // A lookup given the size the caller holds carries the consistency proof from it; a bad size is a 400,
            // one past the log's gets no proof.
            let since = try Self.decode(
                ClientInfo.self,
                try await api.request(
                    .get,
                    "/v1/storage/clients/\(reader.clientID)?keylog_since=\(registered.size)",
                    authorization: "Bearer \(writer.token)"
                )
            )
            let carried = try #require(since.keyLog)
            #expect(carried.since == registered.size)
            let now = try Self.verify(carried.checkpoint, key)
            try MerkleProof.verifyConsistency(
                oldSize: registered.size,
                newSize: now.size,
                oldRoot: registered.root,
                newRoot: now.root,
                proof: try Self.hashes(try #require(carried.consistency))
            )
            for (query, status) in [("x", 400), ("-1", 400), ("99999", 200)] {
                let answer = try await api.request(
                    .get,
                    "/v1/storage/clients/\(reader.clientID)?keylog_since=\(query)",
                    authorization: "Bearer \(writer.token)"
                )
                #expect(Int(answer.status.code) == status, "\(query)")
                if status == 200 { #expect(try Self.decode(ClientInfo.self, answer).keyLog?.consistency == nil) }
            }
            // A monitor recomputes the root from the leaves.
            let leaves = try Self.decode(
                KeyLogLeavesResponse.self,
                try await api.request(.get, "/v2/keylog/leaves?start=0", authorization: "Bearer \(reader.token)")
            )
            #expect(leaves.leaves.map(\.index) == Array(0..<8))
            var tree = MerkleTree()
            for leaf in leaves.leaves { tree.append(.leaf(try #require(Data(base64Encoded: leaf.entry)))) }
            #expect(tree.root(size: 8) == shared.root)
            let page = try Self.decode(
                KeyLogLeavesResponse.self,
                try await api.request(
                    .get,
                    "/v2/keylog/leaves?start=5&count=1",
                    authorization: "Bearer \(reader.token)"
                )
            )
            #expect(page.leaves.map(\.index) == [5])
            // A client's history, proven; one inclusion proof by index.
            let history = try Self.decode(
                KeyLogHistoryResponse.self,
                try await api.request(
                    .get,
                    "/v2/keylog/clients/\(writer.clientID)",
                    authorization: "Bearer \(reader.token)"
                )
            )
            #expect(history.leaves.map(\.index) == [1])
            let byIndex = try Self.decode(
                KeyLogProofResponse.self,
                try await api.request(
                    .get,
                    "/v2/keylog/proof/inclusion?index=1&size=8",
                    authorization: "Bearer \(writer.token)"
                )
            )
            try MerkleProof.verifyInclusion(
                leaf: .leaf(try #require(Data(base64Encoded: leaves.leaves[1].entry))),
                index: 1,
                treeSize: 8,
                proof: try Self.hashes(byIndex.proof),
                root: shared.root
            )

            // What any registered client reads (the monitors' route): the sharing leaves name nobody, so a third
            // client learns only that someone shared or revoked in that hour.
            let bystander = try await api.register("bystander")
            let scanned = try Self.decode(
                KeyLogLeavesResponse.self,
                try await api.request(
                    .get,
                    "/v2/keylog/leaves?start=4&count=4",
                    authorization: "Bearer \(bystander.token)"
                )
            )
            #expect(scanned.leaves.map(\.index) == [4, 5, 6, 7])
            let named = [writer.clientID, reader.clientID, authorizer.clientID].compactMap { UUID(uuidString: $0) }
            for leaf in scanned.leaves {
                let bytes = try #require(Data(base64Encoded: leaf.entry))
                #expect(try KeyLogEntry(decoding: bytes).clientID == KeyLogEntry.unnamed)
                for id in named {
                    let idBytes = withUnsafeBytes(of: id.uuid) { Data($0) }
                    #expect(bytes.range(of: idBytes) == nil, "leaf \(leaf.index) names a party")
                }
            }
        }
    }

    @Test(
        "out-of-range sizes, indexes and counts are 400s; proofs and leaves need a client",
        arguments: TestEngine.available
    )
    func bounded(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let client = try await api.register()
            let bearer = "Bearer \(client.token)"
            for path in [
                "/v2/keylog/proof/consistency?old=2&new=1", "/v2/keylog/proof/consistency?old=0&new=3",
                "/v2/keylog/proof/consistency?old=-1&new=1", "/v2/keylog/proof/consistency?old=0",
                "/v2/keylog/proof/consistency?old=0&new=99999999999999999999",
                "/v2/keylog/proof/consistency?old=0&new=+1",
            ] {
                #expect(try await api.request(.get, path).status == .badRequest, "\(path)")
            }
            for path in [
                "/v2/keylog/proof/inclusion?index=1&size=1", "/v2/keylog/proof/inclusion?index=0&size=3",
                "/v2/keylog/proof/inclusion?index=0", "/v2/keylog/leaves?start=0&count=1001",
                "/v2/keylog/leaves?start=0&count=0", "/v2/keylog/leaves", "/v2/keylog/commitments?after=x",
            ] {
                #expect(try await api.request(.get, path, authorization: bearer).status == .badRequest, "\(path)")
            }
            for path in ["/v2/keylog/proof/inclusion?index=0&size=1", "/v2/keylog/leaves?start=0"] {
                #expect(try await api.request(.get, path).status == .unauthorized, "\(path)")
            }
            // As the client lookup answers: unknown and malformed IDs alike are 404.
            for unknown in ["/v2/keylog/clients/\(UUID().uuidString.lowercased())", "/v2/keylog/clients/not-a-uuid"] {
                #expect(try await api.request(.get, unknown, authorization: bearer).status == .notFound)
            }
            #expect(try await api.request(.get, "/v2/keylog/leaves?start=5", authorization: bearer).status == .ok)
        }
    }

    @Test(
        "concurrent appends keep the indexes dense; clients stored before the log are backfilled once",
        arguments: TestEngine.available
    )
    func appends(engine: TestEngine) async throws {
        try await withStore(engine) { store in
            let clients = (0..<24).map { index in
                let keys = ClientKeys.generate()
                return StoredClient(
                    clientID: ClientID.random().description,
                    name: "c\(index)",
                    publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                    signingKey: .init(ed25519: keys.signingKey.publicKey.base64URLEncoded),
                    apiKeyID: "k\(index)",
                    apiSecretHash: "h",
                    enabled: true,
                    created: Timestamp(microseconds: 1_000 + Int64(index)),
                    registrationToken: nil
                )
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients.prefix(16) { group.addTask { try await store.insertClient(client) } }
                try await group.waitForAll()
            }
            #expect(try await store.keyLogSize() == 16)
            #expect(try await store.keyLogLeaves(from: 0, limit: 100).map(\.index) == Array(0..<16))
            // Eight clients stored the way an older server did, without leaves; one more of NIST keys (not logged).
            var unsigned = clients[0]
            (unsigned.clientID, unsigned.apiKeyID, unsigned.signingKey) = (ClientID.random().description, "u", nil)
            unsigned.publicKey = .init(p384: "not-logged")
            for client in clients.suffix(8) + [unsigned] {
                try await store.database.raw(
                    """
                    INSERT INTO clients (client_id, name, public_key, signing_key, api_key_id, api_secret_hash,
                    enabled, created) VALUES (\(bind: client.clientID), \(bind: client.name),
                    \(bind: try store.json(client.publicKey)), \(bind: try client.signingKey.map(store.json)),
                    \(bind: client.apiKeyID), 'h', \(bind: true), \(bind: client.created.microseconds))
                    """
                ).run()
            }
            var cursor: KeyLogBackfillCursor?
            var rounds = 0
            repeat {
                cursor = try await store.backfillKeyLog(after: cursor, batch: 3)
                rounds += 1
            } while cursor != nil && rounds < 100
            #expect(try await store.keyLogSize() == 24)
            let backfilled = try await store.keyLogLeaves(from: 16, limit: 100)
            #expect(backfilled.map(\.clientID) == clients.suffix(8).map(\.clientID), "in registration order")
            #expect(try await store.backfillKeyLog(after: nil, batch: 100) != nil, "it looks, and logs nothing twice")
            #expect(try await store.keyLogSize() == 24)
        }
    }

    @Test("grant, revocation and authorizer leaves carry the hour, not the microsecond, of the change")
    func coarseTimes() throws {
        let writer = UUID().uuidString.lowercased()
        let slot = AccessKeySlot(writerID: writer, userID: writer, readerID: UUID().uuidString.lowercased(), type: "t")
        let time = Timestamp(microseconds: 1_765_012_345_678_901)
        let hour: UInt64 = 1_765_011_600_000_000
        #expect(try PendingKeyLogLeaf.access(.accessGranted, slot, time: time).entry.time == hour)
        let authorizer = try PendingKeyLogLeaf.authorizer(
            .authorizerGranted,
            writerID: writer,
            userID: writer,
            authorizerID: slot.readerID,
            type: "t",
            time: time
        )
        #expect(authorizer.entry.time == hour)
    }
}
