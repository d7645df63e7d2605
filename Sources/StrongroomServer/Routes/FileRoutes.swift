// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StrongroomCore
import StrongroomWire

/// Large files: pending record → presigned PUT of the ciphertext → PATCH commit → presigned GET.
struct FileRoutes {
    let store: any RecordStore
    /// What a replicated type's attachment bodies must be, who may write them, and how many bytes that type holds.
    let replicated: ReplicatedRecordRules
    let blobs: any BlobStore
    let signer: BlobURLSigner
    let clock: ServerClock
    let authorization: Authorization
    let limits: ServerLimits
    /// The absolute base for presigned URLs, from configuration only (never the request's `Host`).
    let baseURL: PublicBaseURL
    /// Where file-body bytes in and out are counted.
    let metrics: ServerMetrics
    /// When this instance next looks for abandoned uploads (every ten minutes at most).
    let abandonedUploads = SweepSchedule(interval: .seconds(600))

    private var now: Int64 { clock.unixSeconds }

    /// The authenticated paths, under `/v1/storage`.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.files), use: create)
        routes.patch(RouterPath(.file), use: commit)
        routes.get(RouterPath(.file), use: get)
        return routes
    }

    /// The presigned paths (`/v1/storage/blobs/{id}`): their signature is the credential.
    var presignedRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.put(RouterPath(.blob), use: upload)
        routes.get(RouterPath(.blob), use: download)
        return routes
    }

    /// `POST /v1/storage/files` → exactly 202 `{"id", "file_url"}`.
    func create(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(FileWriteRequest.self, request, context)
        let type = try authorization.requireNewRecord(body.meta, by: caller, limits: limits)
        guard var fileMeta = body.meta.fileMeta else { throw ServerError.badRequest("meta.file_meta is required") }
        guard fileMeta.size > 0, fileMeta.checksum.utf8.count <= 64, let md5 = Data(base64Encoded: fileMeta.checksum),
            md5.count == 16
        else {
            throw ServerError.badRequest("file_meta needs a positive size and a base64 MD5 checksum")
        }
        guard fileMeta.size <= limits.maximumFileSize else {
            throw ServerError.tooLarge("a file is at most \(limits.maximumFileSize) bytes")
        }
        if let name = fileMeta.fileName, name.utf8.count > limits.maximumNameBytes {
            throw ServerError.badRequest("file_name is at most \(limits.maximumNameBytes) bytes")
        }
        if fileMeta.compression.utf8.count > 64 {
            throw ServerError.badRequest("compression is at most 64 bytes")
        }
        try await replicated.requireAttachmentShape(
            type: type,
            plain: body.meta.plain,
            size: fileMeta.size,
            caller: caller
        )
        let id = RecordID.random().description
        let timestamp = clock.timestamp()
        await removeStalePendingFiles(now: timestamp, logger: context.logger)
        fileMeta.fileURL = nil
        if fileMeta.fileName?.isEmpty ?? true { fileMeta.fileName = "\(id)-\(timestamp.microseconds)" }
        let pending = StoredRecordText(
            record: StoredRecord(
                index: 0,
                recordID: id,
                writerID: caller,
                userID: caller,
                type: type,
                plain: body.meta.plain ?? [:],
                data: [:],
                recordSignature: nil,
                created: timestamp,
                lastModified: timestamp,
                version: SecureRandom.uuid().uuidString.lowercased(),
                fileMeta: fileMeta,
                isPending: true
            )
        )
        _ = try await replicated.insert(pending, records: store)
        return try json(
            PendingFileResponse(
                id: id,
                fileURL: signer.url(base: try baseURL.value, method: "PUT", id: id, client: caller, now: now)
            ),
            status: .accepted
        )
    }

    /// Deletes pending file records (and their blobs) older than ``ServerLimits/pendingFileLifetime``, and (every ten
    /// minutes at most) what uploads abandoned that long ago left behind. It runs inside another client's request,
    /// so a blob store that fails here is logged, not that request's failure (`blobs sweep` catches up).
    private func removeStalePendingFiles(now: Timestamp, logger: Logger) async {
        let cutoff = now.microseconds.addingSaturating(-limits.pendingFileLifetime.microseconds)
        let cutoffTime = Timestamp(microseconds: cutoff)
        do {
            for id in try await store.deletePendingFiles(createdBefore: cutoffTime) { try await blobs.remove(id: id) }
            if abandonedUploads.claim() { _ = try await blobs.removeAbandonedUploads(startedBefore: cutoffTime) }
        } catch {
            logger.warning("stale uploads could not be removed now", metadata: ["error": "\(error)"])
        }
    }

    /// The presigned `PUT`: no Authorization header; the URL's signature is the credential. → exactly 200.
    func upload(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let recordID = try context.recordID("id")
        let id = recordID.description
        let query = presignedQuery(request)
        guard let signedFor = signer.client(method: "PUT", id: id, query: query, now: now) else {
            throw ServerError.forbidden("the upload URL is invalid or expired")
        }
        guard let record = try await store.record(id: recordID), record.isPending, let fileMeta = record.fileMeta,
            record.writerID == signedFor
        else {
            throw ServerError.notFound("no pending file")
        }
        let (size, checksum) = try await blobs.write(
            id: id,
            body: request.body,
            maximumSize: fileMeta.size,
            context: context
        )
        let contentMD5 = HTTPField.Name("Content-MD5").flatMap { request.headers[$0] }
        guard size == fileMeta.size, ConstantTime.equals(checksum, fileMeta.checksum),
            contentMD5 == nil || contentMD5 == checksum
        else {
            try await blobs.remove(id: id)
            throw ServerError.badRequest("the upload does not match the declared size and checksum")
        }
        metrics.received(blobBytes: size)
        return empty(.ok)
    }

    /// `PATCH /v1/storage/files/{id}`: the writer commits an uploaded file → 201 with the record.
    func commit(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        let id = recordID.description
        guard let record = try await store.record(id: recordID), record.fileMeta != nil else {
            throw ServerError.notFound("no such file")
        }
        try authorization.requireFileWriter(of: record, caller: caller)
        guard record.isPending else { return try json(response(record), status: .created) }
        guard try await blobs.size(id: id) == record.fileMeta?.size else {
            throw ServerError.badRequest("the file has not been uploaded yet")
        }
        // A replicated type's attachment bytes count from here (a declared, never uploaded file holds no room).
        let committed: StoredRecord?
        if record.type.hasPrefix(ReplicatedType.prefix) {
            do {
                committed = try await replicated.store.commitReplicatedFile(
                    id: recordID,
                    lastModified: record.lastModified,
                    maximumBytes: limits.syncAttachmentBytesPerType
                )
            } catch let error as ServerError where error.code == .tooLarge {
                // No room: the upload goes now rather than at the pending sweep (best effort; the sweep is the net).
                if case .done = try await store.deleteRecord(id: recordID, expectedVersion: record.version) {
                    try? await blobs.remove(id: id)
                }
                throw error
            }
        } else {
            committed = try await store.commitFile(id: recordID, lastModified: record.lastModified)
        }
        guard let committed else { throw ServerError.conflict("the file changed while being committed") }
        context.noteWrite(of: record.type)
        return try json(response(committed), status: .created)
    }

    /// `GET /v1/storage/files/{id}`: the record with a fresh presigned download URL.
    func get(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        let id = recordID.description
        guard let record = try await store.record(id: recordID), !record.isPending, record.fileMeta != nil else {
            throw ServerError.notFound("no such file")
        }
        guard try await authorization.mayRead(record, caller: caller) else {
            throw ServerError.forbidden("not shared with you")
        }
        var withURL = response(record)
        withURL.meta.fileMeta?.fileURL = signer.url(
            base: try baseURL.value,
            method: "GET",
            id: id,
            client: caller,
            now: now
        )
        return try json(withURL)
    }

    /// The presigned `GET`: streams the ciphertext, uncompressed. The URL names the client it was made for, and
    /// that client must still be allowed to read the record: a revoke takes effect at once, not at expiry.
    func download(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let recordID = try context.recordID("id")
        let id = recordID.description
        let query = presignedQuery(request)
        guard let signedFor = signer.client(method: "GET", id: id, query: query, now: now) else {
            throw ServerError.forbidden("the download URL is invalid or expired")
        }
        guard let record = try await store.record(id: recordID), !record.isPending else {
            throw ServerError.notFound("no such file")
        }
        guard try await authorization.mayRead(record, caller: signedFor) else {
            throw ServerError.forbidden("the download URL is no longer valid for its client")
        }
        // A file re-wrapped by a rotation is served with its new prologue in place of the stored first 100 bytes.
        let prologue = try await store.filePrologue(id: recordID)
        guard let stored = try await blobs.read(id: id, context: context) else {
            throw ServerError.notFound("no such file")
        }
        let body = prologue.map { PrologueSplice.body(stored, prologue: Array($0.utf8)) } ?? stored
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        if let size = record.fileMeta?.size { headers[.contentLength] = String(size) }
        // Bytes out are counted as they leave, so a download cut short counts what was sent.
        let metrics = self.metrics
        let counted = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(
                writer.map { buffer in
                    metrics.sent(blobBytes: Int64(buffer.readableBytes))
                    return buffer
                }
            )
        }
        return Response(status: .ok, headers: headers, body: counted)
    }

    private func response(_ record: StoredRecord) -> RecordResponse {
        RecordResponse(meta: record.meta, data: [:], recordSignature: record.recordSignature)
    }

    /// The query parameters of a presigned URL (its method, expiry and signature).
    private func presignedQuery(_ request: Request) -> [String: String] {
        request.uri.queryParameters.reduce(into: [String: String]()) { $0[String($1.key)] = String($1.value) }
    }
}
