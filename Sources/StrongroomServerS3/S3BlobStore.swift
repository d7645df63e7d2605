// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import StrongroomServer
import StrongroomWire

/// Blobs as objects in an S3-compatible bucket (`--blob-store s3`), so that every instance of a deployment serves
/// every file without a shared disk. Object keys are `<prefix>blobs/<blob id>`.
///
/// A body of at most one part is sent in one `PUT`; a larger one as a multipart upload, one part arriving while the
/// previous one is sent (so at most two parts of an upload are in memory). S3 makes an object visible only when its
/// `PUT` or the upload's completion succeeds, so an interrupted upload is never seen; its parts, if any, are aborted
/// at once or, after a crash, by ``removeAbandonedUploads(startedBefore:)``. Every part's SHA-256 is signed, so the
/// object store refuses a body corrupted on the way.
struct S3BlobStore: BlobStore {
    private let client: S3Client
    private let partSize: Int
    private let prefix: String

    init(configuration: S3Configuration) {
        client = S3Client(configuration: configuration)
        partSize = configuration.partSize
        prefix = configuration.keyPrefix + "blobs/"
    }

    /// Fails with a `configuration` error when the bucket does not exist or the credentials cannot use it.
    func checkBucket() async throws {
        guard try await client.bucketExists() else {
            throw ServerError(
                .configuration,
                "the S3 bucket \(client.configuration.bucket) does not exist or these credentials cannot use it"
            )
        }
    }

    /// The most parts an S3 multipart upload may have.
    static let maximumParts: Int64 = 10_000

    private func key(_ id: String) -> String { prefix + id }

    func write(
        id: String,
        body: some AsyncSequence<ByteBuffer, any Error> & Sendable,
        maximumSize: Int64,
        context: StrongroomRequestContext
    ) async throws -> (size: Int64, checksum: String) {
        let partSize = self.partSize
        // S3 joins at most 10,000 parts: refuse a body that could not be completed before storing any of it.
        guard maximumSize <= Int64(partSize) * Self.maximumParts else {
            throw ServerError.tooLarge(
                "the file is larger than the object store takes with \(partSize >> 20) MiB parts (--s3-part-size-mib)"
            )
        }
        let digest = RunningDigest(limit: maximumSize)
        var iterator = body.makeAsyncIterator()
        // The first part decides: a body that fits goes in one PUT.
        var first = ByteBuffer()
        // A body that fits in one part is held whole; reserving its size up front avoids growing by doubling.
        first.reserveCapacity(Int(max(0, min(maximumSize, Int64(partSize)))) + 1)
        var ended = false
        while first.readableBytes <= partSize {
            guard let piece = try await iterator.next() else {
                ended = true
                break
            }
            var checked = try digest.update(piece)
            first.writeBuffer(&checked)
        }
        if ended {
            try await client.putObject(key: key(id), data: first)
            return digest.finish()
        }
        let uploadID = try await client.createMultipartUpload(key: key(id))
        do {
            let etags = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                var etags: [Int: String] = [:]
                var pending = first
                var number = 0
                var sending = false
                func send(_ part: ByteBuffer) async throws {
                    if sending, let (index, etag) = try await group.next() { etags[index] = etag }
                    number += 1
                    let partNumber = number
                    let client = self.client
                    let key = self.key(id)
                    group.addTask {
                        (
                            partNumber - 1,
                            try await client.uploadPart(key: key, uploadID: uploadID, number: partNumber, data: part)
                        )
                    }
                    sending = true
                }
                while true {
                    while pending.readableBytes >= partSize, let part = pending.readSlice(length: partSize) {
                        try await send(part)
                    }
                    guard let piece = try await iterator.next() else { break }
                    pending.discardReadBytes()
                    var checked = try digest.update(piece)
                    pending.writeBuffer(&checked)
                }
                if pending.readableBytes > 0 { try await send(pending) }
                for try await (index, etag) in group { etags[index] = etag }
                return (0..<number).compactMap { etags[$0] }
            }
            try await client.completeMultipartUpload(key: key(id), uploadID: uploadID, etags: etags)
        } catch {
            // Best effort: what is left is an unfinished upload, which the abandoned-upload sweep aborts.
            try? await client.abortMultipartUpload(key: key(id), uploadID: uploadID)
            throw error
        }
        return digest.finish()
    }

    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody? {
        guard let response = try await client.getObject(key: key(id)) else { return nil }
        let size = try S3Client.contentLength(of: response)
        guard let length = Int(exactly: size) else { throw ServerError.storage("the stored blob has a bad size") }
        return ResponseBody(contentLength: length) { writer in
            var sent: Int64 = 0
            for try await buffer in response.body {
                sent += Int64(buffer.readableBytes)
                guard sent <= size else { throw ServerError.storage("the stored blob is longer than its size") }
                try await writer.write(buffer)
            }
            guard sent == size else { throw ServerError.storage("the stored blob ended early") }
            try await writer.finish(nil)
        }
    }

    func size(id: String) async throws -> Int64? { try await client.objectSize(key: key(id)) }

    func remove(id: String) async throws { try await client.deleteObject(key: key(id)) }

    func removeAbandonedUploads(startedBefore time: Timestamp) async throws -> Int {
        var removed = 0
        for upload in try await client.pendingUploads(prefix: prefix) {
            guard let initiated = upload.initiated, initiated < time else { continue }
            try await client.abortMultipartUpload(key: upload.key, uploadID: upload.uploadID)
            removed += 1
        }
        return removed
    }
}
