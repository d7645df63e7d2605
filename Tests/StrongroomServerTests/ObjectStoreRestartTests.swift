// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrongroomCore
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer
@testable import StrongroomServerS3

/// The S3 object store (Ceph's RADOS Gateway, a cluster of the test's own) killed and restarted before and in the
/// middle of uploads and downloads: each fails with 503 `object_store_unavailable` or a cut connection — never a
/// file visible half-written, never a wrong body — the server recovers without a restart, and the abandoned-upload
/// sweep leaves nothing behind.
///
/// Every transfer goes through AsyncHTTPClient with a deadline of minutes, not HummingbirdTesting's client: that one
/// gives a whole request 20 s, which a 60 MiB upload or the first request after the gateway restarts can exceed on a
/// busy machine (CI saw `.readTimeout`). Only registration and the pending file, which never reach the store, use it.
@Suite(.enabled(if: TestBucket.isAvailable, "needs the test object store"))
struct ObjectStoreRestartTests {
    static let partSize = S3Configuration.minimumPartSize

    @Test("the object store stopped and restarted mid-upload and mid-download: typed errors, recovery, nothing left")
    func restart() async throws {
        try await withTemporaryDirectory { directory in
            try await ObjectStoreCluster.with(in: directory, monitorPort: 6889, gatewayPort: 7580) { url, cluster in
                let bucket = try await TestBucket.make(in: url)
                try await TestServer.run(blobStorage: .s3, objectStore: bucket.configuration) { api in
                    try await check(api, bucket: bucket, cluster: cluster)
                }
            }
        }
    }

    private func check(_ api: API, bucket: TestBucket, cluster: ObjectStoreCluster) async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await transfers(api, http: http, bucket: bucket, cluster: cluster)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    private func transfers(_ api: API, http: HTTPClient, bucket: TestBucket, cluster: ObjectStoreCluster) async throws {
        let client = try await api.register()
        // Large enough that the gateway cannot have sent all of it into socket buffers before it is killed.
        let stored = Self.body(size: 12 * Self.partSize + 1)
        let storedFile = try await api.createFile(as: client, body: stored)
        #expect(try await send(http, api, storedFile.fileURL, upload: .bytes(stored)).status == 200)
        #expect(try await commit(http, api, storedFile, as: client) == 201)

        // Stopped before: 503 object_store_unavailable both ways, and the same requests work once it is back.
        _ = try await cluster.run("halt")
        let second = Self.body(size: Self.partSize + 70_000)
        let secondFile = try await api.createFile(as: client, body: second)
        let refusedUpload = try await send(http, api, secondFile.fileURL, upload: .bytes(second))
        #expect(Self.refused(refusedUpload), "\(refusedUpload)")
        let downloadURL = try await fileURL(http, api, storedFile, as: client)
        let refusedDownload = try await send(http, api, downloadURL, upload: nil)
        #expect(refusedDownload.status == 503 && refusedDownload.code == "object_store_unavailable")
        _ = try await cluster.run("resume")
        #expect(try await send(http, api, secondFile.fileURL, upload: .bytes(second)).status == 200)
        #expect(try await commit(http, api, secondFile, as: client) == 201)
        let secondURL = try await fileURL(http, api, secondFile, as: client)
        #expect(try await fetch(http, api, secondURL, upTo: second.count + 1) == second)

        // Stopped mid-upload: the first part is in the store when it goes; the rest of the body then fails.
        let cut = Self.body(size: 2 * Self.partSize - 1)
        let cutFile = try await api.createFile(as: client, body: cut)
        let (pieces, feed) = AsyncStream.makeStream(of: ByteBuffer.self)
        let cutUpload = Task {
            try await send(http, api, cutFile.fileURL, upload: .stream(pieces, length: .known(Int64(cut.count))))
        }
        feed.yield(ByteBuffer(bytes: cut[..<(Self.partSize + 1)]))
        try await waitForFirstPart(bucket)
        _ = try await cluster.run("halt")
        feed.yield(ByteBuffer(bytes: cut[(Self.partSize + 1)...]))
        feed.finish()
        let cutAnswer = try await cutUpload.value
        #expect(Self.refused(cutAnswer), "\(cutAnswer)")
        _ = try await cluster.run("resume")

        // Stopped mid-download: the body stops short (the length was promised, so the client knows).
        var download = HTTPClientRequest(url: api.baseURL + Self.pathAndQuery(downloadURL))
        download.headers.add(name: "connection", value: "close")
        let streaming = try await http.execute(download, timeout: .seconds(120))
        #expect(streaming.status == .ok)
        var received = 0
        var stopped = false
        do {
            for try await piece in streaming.body {
                received += piece.readableBytes
                if !stopped {
                    stopped = true
                    _ = try await cluster.run("halt")
                }
            }
        } catch {
            // A cut connection is one of the two allowed outcomes; the other is a short body.
        }
        #expect(received < stored.count, "the whole body arrived although the store stopped after the first piece")

        // Back: everything acknowledged is there, the cut upload is not visible, and the sweep leaves nothing.
        _ = try await cluster.run("resume")

        #expect(try await fetch(http, api, downloadURL, upTo: stored.count + 1) == stored)
        #expect(try await commit(http, api, cutFile, as: client) == 400, "the cut upload must not be visible")
        let sweep = S3BlobStore(configuration: bucket.configuration)
        let later = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000)
        _ = try await sweep.removeAbandonedUploads(startedBefore: later)
        let left = try await bucket.contents()
        #expect(left.keys.count == 2 && left.uploads == 0, "\(left)")
    }

    /// Whether an upload the store could not take was refused as promised: 503 `object_store_unavailable`, or the
    /// connection closed under a body the server stopped reading after answering (which side of that race the client
    /// sees depends on how much of the body was in flight: CI saw `I/O on closed channel`).
    private static func refused(_ answer: (status: UInt, code: String?)) -> Bool {
        (answer.status == 503 && answer.code == "object_store_unavailable") || answer.code == Self.cut
    }

    /// The channel errors of a connection the server closed under an upload.
    private static let closings: [ChannelError] = [.ioOnClosedChannel, .eof, .outputClosed]

    /// The code `send` reports for an upload whose connection closed before an answer arrived.
    private static let cut = "(connection closed)"

    /// Random bytes (ciphertext as far as the server can tell).
    private static func body(size: Int) -> [UInt8] {
        SecureRandom.bytes(count: size).withUnsafeBytes { Array($0) }
    }

    private static func pathAndQuery(_ fileURL: String) -> String {
        guard let url = URLComponents(string: fileURL) else { return fileURL }
        return url.path + "?" + (url.percentEncodedQuery ?? "")
    }

    /// Sends to a presigned URL; the status and the error body's code (for an upload whose connection closed first,
    /// status 0 and `cut`).
    private func send(
        _ http: HTTPClient,
        _ api: API,
        _ fileURL: String,
        upload body: HTTPClientRequest.Body?
    ) async throws -> (status: UInt, code: String?) {
        let answer: (status: UInt, body: ByteBuffer)
        do {
            answer = try await call(http, api, body == nil ? .GET : .PUT, Self.pathAndQuery(fileURL), body: body)
        } catch let error as ChannelError where body != nil && Self.closings.contains(error) {
            return (0, Self.cut)
        } catch let error as HTTPClientError where body != nil && error == .remoteConnectionClosed {
            return (0, Self.cut)
        }
        return (answer.status, try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: answer.body)).code)
    }

    /// The body served at a presigned download URL (the test fails on any other status).
    private func fetch(_ http: HTTPClient, _ api: API, _ fileURL: String, upTo limit: Int) async throws -> [UInt8] {
        let answer = try await call(http, api, .GET, Self.pathAndQuery(fileURL), limit: limit)
        try #require(answer.status == 200, "download: \(answer.status)")
        return Array(buffer: answer.body)
    }

    /// Commits a pending file; the status.
    private func commit(
        _ http: HTTPClient,
        _ api: API,
        _ file: PendingFileResponse,
        as client: RegisteredClient
    ) async throws -> UInt {
        try await call(http, api, .PATCH, "/v1/storage/files/\(file.id)", token: client.token).status
    }

    /// The presigned download URL of a committed file.
    private func fileURL(
        _ http: HTTPClient,
        _ api: API,
        _ file: PendingFileResponse,
        as client: RegisteredClient
    ) async throws -> String {
        let answer = try await call(http, api, .GET, "/v1/storage/files/\(file.id)", token: client.token)
        try #require(answer.status == 200)
        let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: answer.body))
        return try #require(record.meta.fileMeta?.fileURL)
    }

    /// One request to the server under test, with two minutes to finish; the status and at most `limit` bytes of
    /// the body.
    private func call(
        _ http: HTTPClient,
        _ api: API,
        _ method: HTTPMethod,
        _ pathAndQuery: String,
        token: String? = nil,
        body: HTTPClientRequest.Body? = nil,
        limit: Int = 1 << 20
    ) async throws -> (status: UInt, body: ByteBuffer) {
        var request = HTTPClientRequest(url: api.baseURL + pathAndQuery)
        request.method = method
        // A fresh connection each time: one the server closes after refusing an upload (it stops reading and
        // closes) must never be taken from the pool for the next request (CI saw `I/O on closed channel`).
        request.headers.add(name: "connection", value: "close")
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let body { request.body = body }
        let response = try await http.execute(request, timeout: .seconds(120))
        return (response.status.code, try await response.body.collect(upTo: limit))
    }

    /// Waits (polling the store, bounded so a hang fails) until an unfinished upload holds its first part.
    private func waitForFirstPart(_ bucket: TestBucket) async throws {
        for _ in 0..<1200 {
            for upload in try await bucket.client.pendingUploads(prefix: "") {
                if try await bucket.client.parts(key: upload.key, uploadID: upload.uploadID) >= 1 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("the first part never reached the object store")
    }
}
