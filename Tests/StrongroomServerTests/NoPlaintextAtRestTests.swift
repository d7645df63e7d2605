// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomCore
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer
@testable import StrongroomServerS3

/// The server's files never hold user plaintext, private keys or API secrets.
@Suite struct NoPlaintextAtRestTests {
    /// Each engine with its default blob store, and SQLite with an S3 bucket.
    static var deployments: [(TestEngine, BlobStorage?)] {
        TestEngine.available.map { ($0, nil) } + (TestBucket.isAvailable ? [(.sqlite, .s3)] : [])
    }

    @Test("the data directory holds no canary, private key or API secret", arguments: deployments)
    func scan(engine: TestEngine, blobs: BlobStorage?) async throws {
        let bucket = blobs == .s3 ? try await TestBucket.make() : nil
        try await TestServer.run(engine: engine, blobStorage: blobs, objectStore: bucket?.configuration) { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let key = AccessKey()
            let canary = "CANARY-\(UUID().uuidString)-plaintext"
            for index in 0..<20 {
                _ = try await api.writeRecord(
                    as: writer,
                    type: "t",
                    fields: ["secret": "\(canary) \(index)"],
                    accessKey: key
                )
            }
            try await api.share("t", from: writer, to: reader, accessKey: key)
            try await uploadFile(
                api,
                as: writer,
                plaintext: Array(String(repeating: canary, count: 5000).utf8),
                key: key
            )
            let secrets = [
                canary, writer.apiSecret, reader.apiSecret, writer.keys.encryptionKey.base64URLEncoded,
                writer.keys.signingKey.base64URLEncoded, Base64URL.encode(key.rawRepresentation),
            ]
            if let bucket {
                // S3: every object of the bucket, copied into the data directory to be scanned with it.
                let keys = try await bucket.client.keys(prefix: "")
                #expect(keys.count == 1, "the file body: \(keys)")
                for (index, key) in keys.enumerated() {
                    let response = try #require(try await bucket.client.getObject(key: key))
                    let body = try await response.body.collect(upTo: 64 << 20)
                    try Data(buffer: body).write(to: api.dataDirectory.appending(path: "s3-object-\(index)"))
                }
            }
            var files = try FileManager.default.subpathsOfDirectory(atPath: api.dataDirectory.path)
            if let url = api.databaseURL {
                // PostgreSQL: scan a full dump of the database, written into the data directory.
                let dump = api.dataDirectory.appending(path: "postgres.dump.sql")
                let outcome = try await ExternalProcess.run(
                    URL(fileURLWithPath: "/usr/bin/pg_dump"),
                    arguments: [url, "--file", dump.path]
                )
                #expect(outcome.status == 0, "\(outcome.output)")
                files = try FileManager.default.subpathsOfDirectory(atPath: api.dataDirectory.path)
                #expect(files.contains("postgres.dump.sql"))
                let text = try String(contentsOf: dump, encoding: .utf8)
                #expect(text.contains("COPY public.records"), "the dump holds the records table")
            } else {
                #expect(files.contains("strongroom.sqlite"))
            }
            let findings = try PlaintextScan.scan(api.dataDirectory, for: secrets)
            #expect(findings.isEmpty, "\(findings)")
        }
    }

    /// The three-step E3DB file upload: pending record, presigned PUT, commit.
    private func uploadFile(_ api: API, as client: RegisteredClient, plaintext: [UInt8], key: AccessKey) async throws {
        var encryptor = FileEncryptor(accessKey: key)
        var ciphertext: [UInt8] = []
        encryptor.update(plaintext, into: &ciphertext)
        let summary = encryptor.finalize(into: &ciphertext)
        let create = FileWriteRequest(
            meta: .init(
                writerID: client.clientID,
                userID: client.clientID,
                type: "t",
                plain: [:],
                fileMeta: FileMeta(checksum: try #require(summary.checksum), compression: "raw", size: summary.size)
            )
        )
        let pending = try await api.request(.post, "/v1/storage/files", token: client.token, json: create)
        #expect(pending.status == .accepted)
        let upload = try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
        let url = try #require(URLComponents(string: upload.fileURL))
        let put = try await api.client.execute(
            uri: url.path + "?" + (url.percentEncodedQuery ?? ""),
            method: .put,
            body: ByteBuffer(bytes: ciphertext)
        )
        #expect(put.status == .ok)
        let commit = try await api.request(
            .patch,
            "/v1/storage/files/\(upload.id)",
            authorization: "Bearer \(client.token)"
        )
        #expect(commit.status == .created)
    }
}
