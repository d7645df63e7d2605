// Strongroom — SPDX-License-Identifier: Apache-2.0
package import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import StrongroomCore
import StrongroomServer
import StrongroomWire

/// The S3 operations the blob store uses, over AsyncHTTPClient with Signature V4, path-style addressing. Every
/// answer other than the expected one is a `storage` error naming the operation, the status and S3's error code
/// (never the credentials or a signature).
package struct S3Client: Sendable {
    /// One client for every S3 store of the process: connections are kept alive and reused, a connection attempt
    /// gives up after 10 s and a stalled transfer after 60 s without a byte. A download holds its connection for
    /// as long as it streams, so the pool keeps up to 256 (AsyncHTTPClient's default of 8 would make the ninth
    /// concurrent download wait for one of the first eight to finish).
    static let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(
            timeout: .init(connect: .seconds(10), read: .seconds(60)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256),
            decompression: .disabled
        )
    )

    /// The largest error or listing answer read.
    static let maximumAnswer = 4 << 20
    /// The most listing pages one call reads (a store that keeps answering "truncated" cannot hold it forever).
    static let maximumPages = 1000
    /// The payload hash of a request without a body.
    private static let emptyPayloadHash = SHA256.hash(data: Data()).hexString

    /// An upload that was started but neither completed nor aborted.
    package struct PendingUpload: Equatable {
        var key: String
        var uploadID: String
        var initiated: Timestamp?
    }

    let configuration: S3Configuration
    private let signer: S3Signer
    private let host: String
    private let base: String

    package init(configuration: S3Configuration) {
        self.configuration = configuration
        signer = S3Signer(
            accessKeyID: configuration.accessKeyID,
            secretAccessKey: configuration.secretAccessKey,
            region: configuration.region
        )
        let endpoint = configuration.endpoint
        let scheme = endpoint.scheme ?? "https"
        let defaultPort = scheme == "https" ? 443 : 80
        let hostName = endpoint.host ?? ""
        let bracketed = hostName.contains(":") ? "[\(hostName)]" : hostName
        host = endpoint.port.map { $0 == defaultPort ? bracketed : "\(bracketed):\($0)" } ?? bracketed
        base = "\(scheme)://\(host)"
    }

    // MARK: Buckets

    /// Whether the bucket exists and these credentials may use it.
    func bucketExists() async throws -> Bool {
        let response = try await send("HEAD", key: nil, operation: "check the bucket", expecting: [200, 403, 404])
        return response.status == .ok
    }

    /// Creates the bucket (for tests and set-up tools; the server never creates one).
    package func createBucket() async throws {
        _ = try await send("PUT", key: nil, operation: "create the bucket", expecting: [200])
    }

    /// The keys under `prefix`, at most `limit` (for tests and checks).
    package func keys(prefix: String, limit: Int = 1000) async throws -> [String] {
        let response = try await send(
            "GET",
            key: nil,
            query: [("list-type", "2"), ("prefix", prefix), ("max-keys", String(min(limit, 1000)))],
            operation: "list objects",
            expecting: [200],
            keepingBody: true
        )
        let xml = try await Self.text(of: response)
        return S3XML.values(of: "Key", in: xml[...], limit: limit)
    }

    // MARK: Objects

    /// Stores `data` under `key` in one request, its SHA-256 signed so that the store refuses a corrupted body.
    func putObject(key: String, data: ByteBuffer) async throws {
        _ = try await send("PUT", key: key, body: data, operation: "store an object", expecting: [200])
    }

    /// The object's answer, its body not yet read, or nil when there is no such object.
    package func getObject(key: String) async throws -> HTTPClientResponse? {
        let response = try await send(
            "GET",
            key: key,
            operation: "read an object",
            expecting: [200, 404],
            keepingBody: true
        )
        guard response.status == .ok else {
            // Draining the body so the connection can be reused; its text is not needed.
            _ = try? await Self.text(of: response, limit: 64 << 10)
            return nil
        }
        return response
    }

    /// The object's size, or nil when there is no such object.
    func objectSize(key: String) async throws -> Int64? {
        let response = try await send("HEAD", key: key, operation: "look up an object", expecting: [200, 404])
        guard response.status == .ok else { return nil }
        return try Self.contentLength(of: response)
    }

    /// Deletes the object (no error when it is missing).
    func deleteObject(key: String) async throws {
        _ = try await send("DELETE", key: key, operation: "delete an object", expecting: [204, 200, 404])
    }

    // MARK: Multipart uploads

    /// Starts a multipart upload and returns its ID.
    func createMultipartUpload(key: String) async throws -> String {
        let response = try await send(
            "POST",
            key: key,
            query: [("uploads", nil)],
            operation: "start an upload",
            expecting: [200],
            keepingBody: true
        )
        let xml = try await Self.text(of: response)
        guard let id = S3XML.value(of: "UploadId", in: xml[...]), !id.isEmpty, id.utf8.count <= 1024 else {
            throw ServerError.storage("the object store's answer to starting an upload has no upload ID")
        }
        return id
    }

    /// Sends part `number` (from 1) and returns its ETag.
    func uploadPart(key: String, uploadID: String, number: Int, data: ByteBuffer) async throws -> String {
        let response = try await send(
            "PUT",
            key: key,
            query: [("partNumber", String(number)), ("uploadId", uploadID)],
            body: data,
            operation: "store part of an upload",
            expecting: [200]
        )
        guard let etag = response.headers.first(name: "etag"), !etag.isEmpty, etag.utf8.count <= 1024 else {
            throw ServerError.storage("the object store did not return the part's ETag")
        }
        return etag
    }

    /// Joins the parts into the object, which becomes visible only now.
    func completeMultipartUpload(key: String, uploadID: String, etags: [String]) async throws {
        let body = ByteBuffer(string: S3XML.completeMultipartUpload(etags: etags))
        let response = try await send(
            "POST",
            key: key,
            query: [("uploadId", uploadID)],
            body: body,
            operation: "complete an upload",
            expecting: [200],
            keepingBody: true
        )
        // S3 may answer 200 and report the failure in the body.
        let xml = try await Self.text(of: response)
        if xml.contains("<Error>") {
            let code = S3XML.value(of: "Code", in: xml[...]) ?? "unknown"
            throw ServerError.storage("the object store could not complete an upload (\(code))")
        }
    }

    /// Abandons an upload and frees its parts (no error when it is already gone).
    func abortMultipartUpload(key: String, uploadID: String) async throws {
        _ = try await send(
            "DELETE",
            key: key,
            query: [("uploadId", uploadID)],
            operation: "abort an upload",
            expecting: [204, 200, 404]
        )
    }

    /// Uploads under `prefix` that were started and never completed nor aborted, at most `limit`.
    package func pendingUploads(prefix: String, limit: Int = 100_000) async throws -> [PendingUpload] {
        var uploads: [PendingUpload] = []
        var markers: (key: String, upload: String)?
        var pages = 0
        repeat {
            pages += 1
            var query: [(String, String?)] = [("uploads", nil), ("prefix", prefix), ("max-uploads", "1000")]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let response = try await send(
                "GET",
                key: nil,
                query: query,
                operation: "list unfinished uploads",
                expecting: [200],
                keepingBody: true
            )
            let xml = try await Self.text(of: response)
            for block in S3XML.elements("Upload", in: xml[...], limit: limit - uploads.count) {
                guard let key = S3XML.value(of: "Key", in: block), let id = S3XML.value(of: "UploadId", in: block)
                else { continue }
                let initiated = S3XML.value(of: "Initiated", in: block).flatMap(Timestamp.init(iso8601:))
                uploads.append(PendingUpload(key: key, uploadID: id, initiated: initiated))
            }
            guard S3XML.value(of: "IsTruncated", in: xml[...]) == "true",
                let nextKey = S3XML.value(of: "NextKeyMarker", in: xml[...]),
                let nextUpload = S3XML.value(of: "NextUploadIdMarker", in: xml[...]),
                nextKey != markers?.key || nextUpload != markers?.upload
            else { break }
            markers = (nextKey, nextUpload)
        } while uploads.count < limit && pages < Self.maximumPages
        return uploads
    }

    /// How many parts of an unfinished upload the store holds (at most 1000; for tests and checks).
    func parts(key: String, uploadID: String) async throws -> Int {
        let response = try await send(
            "GET",
            key: key,
            query: [("uploadId", uploadID)],
            operation: "list the parts of an upload",
            expecting: [200],
            keepingBody: true
        )
        let xml = try await Self.text(of: response)
        return S3XML.elements("Part", in: xml[...], limit: 1000).count
    }

    // MARK: Requests

    private func send(
        _ method: String,
        key: String?,
        query: [(String, String?)] = [],
        body: ByteBuffer? = nil,
        operation: String,
        expecting statuses: Set<UInt>,
        keepingBody: Bool = false
    ) async throws -> HTTPClientResponse {
        let path = "/\(configuration.bucket)" + (key.map { "/\($0)" } ?? "")
        let payloadHash =
            body.map { buffer in buffer.withUnsafeReadableBytes { SHA256.hash(data: $0).hexString } }
            ?? Self.emptyPayloadHash
        let signed = signer.sign(
            method: method,
            host: host,
            path: path,
            query: query,
            payloadHash: payloadHash,
            date: Date()
        )
        var request = HTTPClientRequest(url: base + signed.pathAndQuery)
        request.method = HTTPMethod(rawValue: method)
        for header in signed.headers { request.headers.add(name: header.name, value: header.value) }
        if let body {
            request.headers.add(name: "content-length", value: String(body.readableBytes))
            request.body = .bytes(body)
        }
        let response: HTTPClientResponse
        do {
            response = try await Self.http.execute(request, deadline: .distantFuture)
        } catch {
            throw ServerError(.objectStoreUnavailable, "the object store could not be reached to \(operation)")
        }
        guard statuses.contains(response.status.code) else {
            // The error body only adds detail to a message about a status already known.
            let text = (try? await Self.text(of: response, limit: 16 << 10)) ?? ""
            let code = S3XML.value(of: "Code", in: text[...]).map { " \($0)" } ?? ""
            // Its own failures (500 InternalError, 503 SlowDown, a gateway without its cluster) pass; the rest is
            // a configuration or a bug of ours.
            let failure: ServerError.Code = response.status.code >= 500 ? .objectStoreUnavailable : .storage
            throw ServerError(failure, "the object store refused to \(operation): \(response.status.code)\(code)")
        }
        // An answer read to its end lets the connection serve the next request.
        if !keepingBody { _ = try await Self.text(of: response, limit: 64 << 10) }
        return response
    }

    private static func text(of response: HTTPClientResponse, limit: Int = maximumAnswer) async throws -> String {
        let buffer: ByteBuffer
        do {
            buffer = try await response.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw ServerError.storage("the object store's answer was too long")
        } catch {
            throw ServerError(.objectStoreUnavailable, "the object store's answer was cut off")
        }
        return String(buffer: buffer)
    }

    /// The `content-length` of an answer, range-checked.
    static func contentLength(of response: HTTPClientResponse) throws -> Int64 {
        guard let text = response.headers.first(name: "content-length"), let length = Int64(text), length >= 0 else {
            throw ServerError.storage("the object store's answer has no valid length")
        }
        return length
    }
}
