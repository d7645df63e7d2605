// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomServerS3
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// File bodies through each blob store: the local folder, chunked rows in the database, and an S3 bucket (Ceph's
/// RADOS Gateway).
@Suite struct BlobStorageTests {
    /// Every engine with each store it can use.
    static var stores: [(TestEngine, BlobStorage)] {
        // PostgreSQL with a local folder is refused unless single-instance (ScaleOutTests).
        let engines = TestEngine.available
        var stores: [(TestEngine, BlobStorage)] = [(.sqlite, .folder), (.sqlite, .database)]
        if engines.contains(.postgres) { stores.append((.postgres, .database)) }
        if TestBucket.isAvailable { stores += engines.map { ($0, .s3) } }
        return stores
    }

    /// Runs `body` against a server whose blobs live in `storage` (a fresh bucket for S3).
    private func withServer(
        _ engine: TestEngine,
        _ storage: BlobStorage,
        _ body: @escaping @Sendable (API, TestBucket?) async throws -> Void
    ) async throws {
        let bucket = storage == .s3 ? try await TestBucket.make() : nil
        try await TestServer.run(engine: engine, blobStorage: storage, objectStore: bucket?.configuration) { api in
            try await body(api, bucket)
        }
    }

    @Test(
        "a body across chunk boundaries round trips; a second upload replaces the first; deleting the record removes it",
        arguments: stores
    )
    func roundTrip(engine: TestEngine, storage: BlobStorage) async throws {
        try await withServer(engine, storage) { api, bucket in
            let client = try await api.register()
            // Two chunks (S3: parts of a multipart upload) and one byte: the last one is short.
            let size = 2 * (storage == .s3 ? S3Configuration.minimumPartSize : 1 << 20) + 1
            let body = SecureRandom.bytes(count: size).withUnsafeBytes { Array($0) }
            let file = try await api.createFile(as: client, body: body)
            let id = file.id
            #expect(try await api.upload(file, body: body) == .ok)
            #expect(try await api.upload(file, body: body) == .ok, "a retried upload replaces the first")
            if let url = api.databaseURL, storage == .database {
                #expect(try await rowCount("blob_uploads", in: url) == 1)
            }
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(id)",
                authorization: "Bearer \(client.token)"
            )
            #expect(commit.status == .created)
            #expect(try await api.download(id: id, as: client) == body)

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
            if let bucket {
                let left = try await bucket.contents()
                #expect(left.keys.isEmpty && left.uploads == 0, "\(left)")
            }
        }
    }

    @Test(
        "a re-wrapped file key is served in place of the stored prologue, with its checksum, from every store",
        arguments: stores
    )
    func rewrappedPrologue(engine: TestEngine, storage: BlobStorage) async throws {
        try await withServer(engine, storage) { api, _ in
            let client = try await api.register()
            // More than one chunk (S3: one part) after a prologue of E3DB's shape; the server never decrypts.
            let stored = Array(
                ("3." + String(repeating: "A", count: 64) + "." + String(repeating: "B", count: 32) + ".").utf8
            )
            let size = (storage == .s3 ? S3Configuration.minimumPartSize : 1 << 20) + 70_000
            let body = stored + SecureRandom.bytes(count: size).withUnsafeBytes { Array($0) }
            let file = try await api.createFile(as: client, body: body)
            #expect(try await api.upload(file, body: body) == .ok)
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(file.id)",
                authorization: "Bearer \(client.token)"
            )
            let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: commit.body))
            let key = try await api.request(
                .get,
                "/v2/storage/files/\(file.id)/key",
                authorization: "Bearer \(client.token)"
            )
            let read = try JSONDecoder().decode(FileKeyResponse.self, from: Data(buffer: key.body))
            #expect(read.prologue == String(decoding: stored, as: UTF8.self) && read.version == record.meta.version)

            let prologue = "3." + String(repeating: "C", count: 64) + "." + String(repeating: "D", count: 32) + "."
            for round in 0..<2 {  // a second re-wrap replaces the first
                let current = try JSONDecoder().decode(
                    FileKeyResponse.self,
                    from: Data(
                        buffer: try await api.request(
                            .get,
                            "/v2/storage/files/\(file.id)/key",
                            authorization: "Bearer \(client.token)"
                        ).body
                    )
                )
                let next = round == 0 ? prologue : prologue.replacingOccurrences(of: "C", with: "E")
                let put = try await api.request(
                    .put,
                    "/v2/storage/files/\(file.id)/key",
                    token: client.token,
                    json: FileKeyRewrapRequest(generation: 1, version: current.version, prologue: next)
                )
                #expect(put.status == .ok)
                let answer = try JSONDecoder().decode(FileKeyRewrapResponse.self, from: Data(buffer: put.body))
                let served = Array(next.utf8) + body.dropFirst(FilePrologue.size)
                #expect(try await api.download(id: file.id, as: client) == served)
                #expect(answer.checksum == Data(Insecure.MD5.hash(data: served)).base64EncodedString())
                let meta = try await api.request(
                    .get,
                    "/v1/storage/files/\(file.id)",
                    authorization: "Bearer \(client.token)"
                )
                let info = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: meta.body))
                #expect(info.meta.fileMeta?.checksum == answer.checksum && info.meta.version == answer.version)
                #expect(info.meta.fileMeta?.size == Int64(body.count))
            }
        }
    }

    @Test("an upload larger or smaller than declared is refused and leaves nothing", arguments: stores)
    func wrongSize(engine: TestEngine, storage: BlobStorage) async throws {
        try await withServer(engine, storage) { api, bucket in
            let client = try await api.register()
            // S3: more than one part, so that the multipart upload is what gets refused.
            let size = storage == .s3 ? S3Configuration.minimumPartSize + 70_000 : 70_000
            let body = SecureRandom.bytes(count: size).withUnsafeBytes { Array($0) }
            let file = try await api.createFile(as: client, body: body)
            let id = file.id
            let tooLarge = try await api.upload(file, body: body + [0])
            #expect(tooLarge == .contentTooLarge)
            #expect(try await api.upload(file, body: Array(body.dropLast())) == .badRequest)
            let commit = try await api.request(
                .patch,
                "/v1/storage/files/\(id)",
                authorization: "Bearer \(client.token)"
            )
            #expect(commit.status == .badRequest, "nothing was uploaded")
            if let url = api.databaseURL, storage == .database {
                #expect(try await rowCount("blob_chunks", in: url) == 0)
            }
            if let bucket {
                let left = try await bucket.contents()
                #expect(left.keys.isEmpty && left.uploads == 0, "\(left)")
            }
        }
    }

    @Test(
        "a missing bucket or wrong credentials stop start-up with a configuration error",
        .enabled(if: TestBucket.isAvailable, "needs the test object store")
    )
    func objectStoreRefused() async throws {
        let bucket = try await TestBucket.make()
        let real = bucket.configuration
        let missing = try S3Configuration(
            endpoint: real.endpoint.absoluteString,
            bucket: real.bucket + "-missing",
            accessKeyID: real.accessKeyID,
            secretAccessKey: real.secretAccessKey
        )
        let wrongSecret = try S3Configuration(
            endpoint: real.endpoint.absoluteString,
            bucket: real.bucket,
            accessKeyID: real.accessKeyID,
            secretAccessKey: SecureBytes(copying: Array("not-the-secret".utf8))
        )
        for configuration in [missing, wrongSecret] {
            await #expect(throws: ServerError.self) {
                try await TestServer.run(blobStorage: .s3, objectStore: configuration) { _ in }
            }
        }
        await #expect(throws: ServerError.self, "--blob-store s3 without a bucket") {
            try await TestServer.run(blobStorage: .s3) { _ in }
        }
    }

    @Test(
        "S3: a file needing more than 10,000 parts is refused with 413 before anything is stored",
        .enabled(if: TestBucket.isAvailable, "needs the test object store")
    )
    func tooManyParts() async throws {
        let bucket = try await TestBucket.make()
        var limits = ServerLimits()
        limits.maximumFileSize = 60 << 30
        try await TestServer.run(limits: limits, blobStorage: .s3, objectStore: bucket.configuration) { api in
            let client = try await api.register()
            let size = Int64(S3Configuration.minimumPartSize) * 10_000 + 1
            let create = FileWriteRequest(
                meta: .init(
                    writerID: client.clientID,
                    userID: client.clientID,
                    type: "huge",
                    plain: [:],
                    fileMeta: FileMeta(checksum: "1B2M2Y8AsgTpgAmY7PhCfg==", compression: "raw", size: size)
                )
            )
            let pending = try await api.request(.post, "/v1/storage/files", token: client.token, json: create)
            try #require(pending.status == .accepted)
            let file = try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
            #expect(try await api.upload(file, body: [1, 2, 3]) == .contentTooLarge)
            let left = try await bucket.contents()
            #expect(left.keys.isEmpty && left.uploads == 0, "\(left)")
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
}
