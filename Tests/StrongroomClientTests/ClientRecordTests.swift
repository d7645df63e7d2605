// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ClientRecordTests {
    @Test("write, read, update, a stale update, delete", arguments: TestEngine.available)
    func lifecycle(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let client = try await ClientTestServer.client(url)
            // Given
            let written = try await client.write(
                type: "contact",
                data: ["name": "Ada", "note": "🔐"],
                plain: ["k": "v"]
            )
            #expect(written.meta.writerID == client.configuration.clientID)
            // When / Then
            let read = try await client.read(recordID: written.meta.recordID)
            #expect(read == written)
            let partial = try await client.read(recordID: written.meta.recordID, fields: ["name"])
            #expect(partial.data == ["name": "Ada"])
            let updated = try await client.update(meta: read.meta, newData: ["name": "Ada Lovelace"])
            #expect(updated.meta.version != read.meta.version)
            #expect(try await client.read(recordID: written.meta.recordID).data == ["name": "Ada Lovelace"])
            let stale = await #expect(throws: ClientError.self) {
                try await client.update(meta: read.meta, newData: ["name": "lost update"])
            }
            #expect(stale?.code == .conflict)
            try await client.delete(recordID: written.meta.recordID, version: updated.meta.version)
            let gone = await #expect(throws: ClientError.self) {
                try await client.read(recordID: written.meta.recordID)
            }
            #expect(gone?.code == .notFound)
        }
    }

    @Test(
        "queries page through every record, by type, plain filter, writer, user and record IDs",
        arguments: TestEngine.available
    )
    func queries(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let client = try await ClientTestServer.client(url)
            for index in 0..<7 {
                _ = try await client.write(
                    type: "page",
                    data: ["i": "\(index)"],
                    plain: ["even": index % 2 == 0 ? "yes" : "no"]
                )
            }
            _ = try await client.write(type: "other", data: ["x": "y"])
            var seen: [String] = []
            for try await record in client.records(matching: QueryParams(count: 3, types: ["page"])) {
                seen.append(record.data["i"] ?? "?")
            }
            #expect(seen == (0..<7).map(String.init))
            let first = try await client.query(QueryParams(count: 5, types: ["page"]))
            #expect(first.records.count == 5)
            let second = try await client.query(QueryParams(count: 5, types: ["page"]).next(after: first))
            #expect(second.records.count == 2)
            let even = try await client.query(QueryParams(types: ["page"], plain: .equals(name: "even", value: "yes")))
            #expect(even.records.map { $0.data["i"] } == ["0", "2", "4", "6"])
            let metadataOnly = try await client.query(QueryParams(types: ["other"], includesData: false))
            #expect(metadataOnly.records.first?.data.isEmpty == true)

            // writerIDs, userIDs and recordIDs filters through the Swift client, with another writer sharing.
            let other = try await ClientTestServer.client(url, "other-writer")
            let shared = try await other.write(type: "page", data: ["i": "other"])
            try await other.share(type: "page", readerID: client.configuration.clientID)
            let me = client.configuration.clientID
            func ids(_ params: QueryParams) async throws -> Set<String> {
                Set(try await client.query(params).records.compactMap { $0.data["i"] })
            }
            let everyone = QueryParams(types: ["page"], includesAllWriters: true)
            #expect(try await ids(everyone) == Set((0..<7).map(String.init) + ["other"]))
            var byWriter = everyone
            byWriter.writerIDs = [other.configuration.clientID]
            #expect(try await ids(byWriter) == ["other"])
            var byUser = everyone
            byUser.userIDs = [me]
            #expect(try await ids(byUser) == Set((0..<7).map(String.init)))
            var byRecord = everyone
            byRecord.recordIDs = [shared.meta.recordID, first.records[1].meta.recordID]
            #expect(try await ids(byRecord) == ["other", "1"])
            var nobody = everyone
            nobody.writerIDs = [UUID()]
            #expect(try await ids(nobody).isEmpty)
        }
    }

    @Test("share (twice), read as the reader, revoke: the reader is refused at once", arguments: TestEngine.available)
    func sharing(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let writer = try await ClientTestServer.client(url, "writer")
            let reader = try await ClientTestServer.client(url, "reader")
            try await writer.share(type: "shared", readerID: reader.configuration.clientID)
            try await writer.share(type: "shared", readerID: reader.configuration.clientID)  // sharing is idempotent
            // The reader looks the writer up: the public keys the server lists are the writer's own.
            let info = try await reader.clientInfo(of: writer.configuration.clientID)
            #expect(info.clientID == writer.configuration.clientID)
            #expect(info.publicKey == writer.configuration.keys.encryptionKey.publicKey)
            #expect(info.signingKey == writer.configuration.keys.signingKey.publicKey)
            let unknown = await #expect(throws: ClientError.self) { try await reader.clientInfo(of: UUID()) }
            #expect(unknown?.code == .notFound)
            let record = try await writer.write(type: "shared", data: ["secret": "for the reader"])
            #expect(try await reader.read(recordID: record.meta.recordID).data == ["secret": "for the reader"])
            let listed = try await reader.query(QueryParams(types: ["shared"], includesAllWriters: true))
            #expect(listed.records.map(\.data) == [["secret": "for the reader"]])
            try await writer.revoke(type: "shared", readerID: reader.configuration.clientID)
            let refused = await #expect(throws: ClientError.self) {
                try await reader.read(recordID: record.meta.recordID)
            }
            #expect(refused?.code == .forbidden)
            let stranger = try await ClientTestServer.client(url, "stranger")
            let error = await #expect(throws: ClientError.self) {
                try await stranger.read(recordID: record.meta.recordID)
            }
            #expect(error?.code == .forbidden)
        }
    }

    @Test("ciphertext from another type is tampered, never someone else's plaintext", arguments: TestEngine.available)
    func tampered(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let client = try await ClientTestServer.client(url)
            let target = try await client.write(type: "a", data: ["f": "mine"])
            let foreign = FieldCipher.encrypt(fields: ["f": "planted"], with: AccessKey())
            // A hostile server (simulated through the raw API) swaps in ciphertext under another key.
            var request = URLRequest(
                url: url.appending(
                    path:
                        "/v1/storage/records/safe/\(target.meta.recordID.uuidString.lowercased())/\(target.meta.version)"
                )
            )
            request.httpMethod = "PUT"
            request.setValue("Bearer \(try await client.tokens.token())", forHTTPHeaderField: "Authorization")
            request.httpBody = try JSONEncoder().encode(
                RecordWriteRequest(meta: .init(writerID: nil, userID: nil, type: "a", plain: nil), data: foreign)
            )
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let error = await #expect(throws: ClientError.self) {
                try await client.read(recordID: target.meta.recordID)
            }
            #expect(error?.code == .tampered)
        }
    }

    @Test("bad credentials, unknown records and an unreachable server give typed errors")
    func errors() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let badToken = await #expect(throws: ClientError.self) {
                try await Client.register(token: "wrong", clientName: "x", apiURL: url)
            }
            #expect(badToken?.code == .unauthorized)
            var configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "x",
                apiURL: url
            )
            let unknown = await #expect(throws: ClientError.self) {
                try await Client(configuration: configuration).read(recordID: UUID())
            }
            #expect(unknown?.code == .notFound)
            configuration.apiSecret = SecureBytes(copying: Array("wrong secret".utf8))
            let refused = await #expect(throws: ClientError.self) {
                try await Client(configuration: configuration).write(type: "t", data: ["a": "b"])
            }
            #expect(refused?.code == .unauthorized)
            #expect(!String(describing: configuration).contains("wrong secret"))
        }
        let offline = Client(
            configuration: .init(
                clientID: UUID(),
                clientName: "offline",
                apiKeyID: "k",
                apiSecret: SecureBytes(copying: [1]),
                keys: .generate(),
                apiURL: try #require(URL(string: "http://127.0.0.1:1"))
            )
        )
        let unreachable = await #expect(throws: ClientError.self) { try await offline.read(recordID: UUID()) }
        #expect(unreachable?.code == .transport)
    }

    @Test("concurrent requests share one token refresh")
    func concurrentRequests() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url)
            let record = try await client.write(type: "c", data: ["v": "1"])
            try await withThrowingTaskGroup(of: Record.self) { group in
                for _ in 0..<20 { group.addTask { try await client.read(recordID: record.meta.recordID) } }
                for try await read in group { #expect(read.data == ["v": "1"]) }
            }
        }
    }

    @Test(
        "TSV1-signed requests instead of tokens: a full flow works; an unregistered key is refused",
        arguments: TestEngine.available
    )
    func signedRequests(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            var configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "signer",
                apiURL: url
            )
            configuration.authentication = .signedRequests
            let client = Client(configuration: configuration)
            let record = try await client.write(type: "signed", data: ["a": "1", "b": "2"])
            #expect(try await client.read(recordID: record.meta.recordID, fields: ["a"]).data == ["a": "1"])
            #expect(try await client.query(QueryParams(types: ["signed"])).records.count == 1)
            let reader = try await ClientTestServer.client(url, "reader")
            try await client.share(type: "signed", readerID: reader.configuration.clientID)
            #expect(try await reader.read(recordID: record.meta.recordID).data == ["a": "1", "b": "2"])

            var impostor = configuration
            impostor.keys = .init(encryptionKey: configuration.keys.encryptionKey, signingKey: SigningPrivateKey())
            let refused = await #expect(throws: ClientError.self) {
                try await Client(configuration: impostor).read(recordID: record.meta.recordID)
            }
            #expect(refused?.code == .unauthorized)
        }
    }
}
