// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire

/// A file's sealed key, read and re-wrapped by its writer after a rotation (docs/design/Revocation.md, "Files"):
/// `GET`/`PUT /v2/storage/files/{id}/key`. The stored body is never rewritten: the new prologue is kept beside the
/// record and served in place of the body's first 100 bytes (``FileRoutes/download(_:context:)``), and the checksum
/// the record declares is computed again over the file as it is served, so the official SDKs read it as before.
struct FileKeyRoutes {
    let store: any RecordStore & SharingStore
    let blobs: any BlobStore
    let authorization: Authorization
    let limits: ServerLimits
    let clock: ServerClock

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.fileKey), use: get)
        routes.put(RouterPath(.fileKey), use: rewrap)
        return routes
    }

    /// The committed file record `id` of the caller, of a type that is re-wrapped in place: 404 for a missing or
    /// pending one, 403 for another writer's, 400 for a replicated datastore's attachment (immutable, as its
    /// revisions).
    private func writersFile(_ context: StrongroomRequestContext) async throws -> (StoredRecord, FileMeta) {
        let caller = try context.caller()
        let recordID = try context.recordID("id")
        guard let record = try await store.record(id: recordID), !record.isPending, let fileMeta = record.fileMeta
        else {
            throw ServerError.notFound("no such file")
        }
        try authorization.requireFileWriter(of: record, caller: caller)
        guard !ReplicatedRecordRules.isReplicated(record.type) else {
            throw ServerError.badRequest("a replicated datastore's attachments are not re-wrapped in place")
        }
        return (record, fileMeta)
    }

    /// GET: the file's prologue as it is served now, and the record's version.
    func get(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let (record, _) = try await writersFile(context)
        let id = try context.recordID("id")
        let prologue: String
        if let stored = try await store.filePrologue(id: id) {
            prologue = stored
        } else {
            let pass = try await BlobPass.readPrologue(blobs, id: id.description, context: context)
            guard let first = pass.prologue, FilePrologue.isWellFormed(first) else {
                throw ServerError.badRequest("the file does not start with a 100-byte E3DB prologue")
            }
            prologue = String(decoding: first, as: UTF8.self)
        }
        return try json(FileKeyResponse(recordID: record.recordID, version: record.version, prologue: prologue))
    }

    /// PUT: the file's new prologue, under the type's current generation, at the version it was read at. The body
    /// is read once to compute the checksum of the file served with it; the prologue, the checksum and a new
    /// version are stored in one update.
    func rewrap(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let (record, fileMeta) = try await writersFile(context)
        let id = try context.recordID("id")
        let body = try await decodeBody(FileKeyRewrapRequest.self, request, context)
        guard KeyGeneration.range.contains(body.generation) else {
            throw ServerError.badRequest("generation is a number from 1 to \(Int32.max)")
        }
        guard FilePrologue.isWellFormed(body.prologue) else {
            throw ServerError.badRequest("prologue is E3DB's 3.EDK.EDKN. of exactly 100 characters")
        }
        let scope = AccessKeyScope(writerID: record.writerID, userID: record.userID, type: record.type)
        try await KeyGenerationFence(store: store).require(body.generation, of: scope)
        guard body.version == record.version else { throw ServerError.conflict("the file changed: read its key again") }
        let pass = try await BlobPass.hashReplacingPrologue(
            blobs,
            id: id.description,
            context: context,
            with: Array(body.prologue.utf8),
            limit: fileMeta.size
        )
        guard let original = pass.prologue, FilePrologue.isWellFormed(original), pass.size == fileMeta.size else {
            throw ServerError.badRequest("the file does not start with a 100-byte E3DB prologue")
        }
        var newMeta = fileMeta
        newMeta.checksum = pass.checksum
        newMeta.fileURL = nil
        let newVersion = SecureRandom.uuid().uuidString.lowercased()
        switch try await store.rewrapFile(
            id: id,
            expectedVersion: body.version,
            prologue: body.prologue,
            fileMeta: newMeta,
            newVersion: newVersion,
            at: clock.timestamp()
        ) {
        case .done(let stored):
            return try json(
                FileKeyRewrapResponse(recordID: stored.recordID, version: stored.version, checksum: pass.checksum)
            )
        case .conflict: throw ServerError.conflict("the file changed: read its key again")
        case .notFound: throw ServerError.notFound("no such file")
        }
    }
}
