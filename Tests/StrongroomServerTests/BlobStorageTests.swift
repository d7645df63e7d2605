// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomTesting
import StrongroomWire
import Testing

/// File bodies through each blob store: the local folder and chunked rows in the database.
@Suite struct BlobStorageTests {
    /// Every engine with each store it can use.
    static var stores: [(TestEngine, BlobStorage)] {
        // PostgreSQL with a local folder is refused unless single-instance (ScaleOutTests).
        BlobStorage.allCases.map { (TestEngine.sqlite, $0) }
            + (TestEngine.available.contains(.postgres) ? [(TestEngine.postgres, BlobStorage.database)] : [])
    }

    @Test(
        "a body across chunk boundaries round trips; a second upload replaces the first; deleting the record removes it",
        arguments: stores
    )
    func roundTrip(engine: TestEngine, storage: BlobStorage) async throws {
        try await TestServer.run(engine: engine, blobStorage: storage) { api in
            let client = try await api.register()
            // Two chunks and one byte: the last chunk is short.
            let body = SecureRandom.bytes(count: 2 << 20 + 1).withUnsafeBytes { Array($0) }
            let file = try await createFile(api, as: client, body: body)
            let id = file.id
            #expect(try await upload(api, file, body: body) == .ok)
            #expect(try await upload(api, file, body: body) == .ok, "a retried upload replaces the first")
            if let url = api.databaseURL { #expect(try await rowCount("blob_uploads", in: url) == 1) }
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(id)",
                authorization: "Bearer \(client.token)"
            )
            #expect(commit.status == .created)
            #expect(try await download(api, id: id, as: client) == body)

            let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: commit.body))
            let deleted = try await api.request(
                .delete,
                "/v1/storage/records/safe/\(id)/\(record.meta.version)",
                authorization: "Bearer \(client.token)"
            )
            #expect(deleted.status == .noContent)
            if let url = api.databaseURL, storage == .database {
                #expect(try await rowCount("blob_uploads", in: url) == 0)
                #expect(try await rowCount("blob_chunks", in: url) == 0)
            }
            if storage == .folder {
                let left = try FileManager.default.contentsOfDirectory(atPath: api.dataDirectory.path + "/blobs")
                #expect(left.isEmpty, "\(left)")
            }
        }
    }

    @Test("an upload larger or smaller than declared is refused and leaves nothing", arguments: stores)
    func wrongSize(engine: TestEngine, storage: BlobStorage) async throws {
        try await TestServer.run(engine: engine, blobStorage: storage) { api in
            let client = try await api.register()
            let body = SecureRandom.bytes(count: 70_000).withUnsafeBytes { Array($0) }
            let file = try await createFile(api, as: client, body: body)
            let id = file.id
            let tooLarge = try await upload(api, file, body: body + [0])
            #expect(tooLarge == .contentTooLarge)
            #expect(try await upload(api, file, body: Array(body.dropLast())) == .badRequest)
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(id)",
                authorization: "Bearer \(client.token)"
            )
            #expect(commit.status == .badRequest, "nothing was uploaded")
            if let url = api.databaseURL, storage == .database {
                #expect(try await rowCount("blob_chunks", in: url) == 0)
            }
        }
    }

    @Test("/ready answers 200 when the database answers and its schema is current", arguments: TestEngine.available)
    func ready(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let response = try await api.request(.get, "/ready")
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("\"ready\""))
        }
    }

    /// A pending file record declaring `body`'s size and MD5: its ID and upload URL.
    private func createFile(_ api: API, as client: TestClient, body: [UInt8]) async throws -> PendingFileResponse {
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        let create = FileWriteRequest(
            meta: .init(
                writerID: client.clientID,
                userID: client.clientID,
                type: "blob",
                plain: [:],
                fileMeta: FileMeta(checksum: md5, compression: "raw", size: Int64(body.count))
            )
        )
        let pending = try await api.request(.post, "/v1/storage/files", token: client.token, json: create)
        try #require(pending.status == .accepted)
        return try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
    }

    /// PUTs `body` to the presigned upload URL of `file`; the status.
    private func upload(_ api: API, _ file: PendingFileResponse, body: [UInt8]) async throws -> HTTPResponse.Status {
        let url = try #require(URLComponents(string: file.fileURL))
        return try await api.client.execute(
            uri: url.path + "?" + (url.percentEncodedQuery ?? ""),
            method: .put,
            body: ByteBuffer(bytes: body)
        ).status
    }

    /// The body served at the file's presigned download URL.
    private func download(_ api: API, id: String, as client: TestClient) async throws -> [UInt8] {
        let file = try await api.request(.get, "/v1/storage/files/\(id)", authorization: "Bearer \(client.token)")
        try #require(file.status == .ok)
        let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: file.body))
        let fileURL = try #require(record.meta.fileMeta?.fileURL)
        let url = try #require(URLComponents(string: fileURL))
        let response = try await api.client.execute(uri: url.path + "?" + (url.percentEncodedQuery ?? ""), method: .get)
        try #require(response.status == .ok)
        return Array(buffer: response.body)
    }
}
