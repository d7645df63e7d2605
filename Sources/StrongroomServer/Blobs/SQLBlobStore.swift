// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import NIOCore
import SQLKit
import StrongroomCore
import StrongroomWire

/// Blobs as chunked rows in the server's own database (`--blob-store database`), so that every instance on one
/// PostgreSQL serves every file and one backup holds metadata and bodies together.
///
/// Each upload attempt gets a row in `blob_uploads` and its ciphertext goes into `blob_chunks` in pieces of
/// ``chunkSize`` as it arrives (one piece in memory at a time). Only when the whole body has arrived is the attempt
/// marked complete, in one transaction that also drops any older body of the same blob; readers only ever see
/// complete attempts. An instance killed mid-upload leaves an incomplete attempt that
/// ``removeAbandonedUploads(startedBefore:)`` deletes.
struct SQLBlobStore: BlobStore {
    /// Bytes per stored chunk: large enough that a row's overhead does not matter, small enough to hold one per
    /// transfer in memory.
    static let chunkSize = 1 << 20

    private let database: any SQLDatabase
    private let clock: ServerClock

    init(store: SQLServerStore, clock: ServerClock) {
        self.database = store.database
        self.clock = clock
    }

    func write(
        id: String,
        body: some AsyncSequence<ByteBuffer, any Error> & Sendable,
        maximumSize: Int64,
        context: StrongroomRequestContext
    ) async throws -> (size: Int64, checksum: String) {
        let upload = SecureRandom.uuid().uuidString.lowercased()
        try await database.raw(
            """
            INSERT INTO blob_uploads (upload_id, blob_id, started, complete)
            VALUES (\(bind: upload), \(bind: id), \(bind: clock.timestamp().microseconds), \(bind: false))
            """
        ).run()
        let digest = RunningDigest(limit: maximumSize)
        do {
            var chunks = ChunkWriter(database: database, upload: upload)
            for try await piece in body { try await chunks.append(try digest.update(piece)) }
            try await chunks.finish()
            let (size, checksum) = digest.finish()
            try await complete(upload: upload, blob: id, size: size, checksum: checksum)
            return (size, checksum)
        } catch {
            // Best effort: what is left is an incomplete attempt, which the abandoned-upload sweep removes.
            try? await discard(uploads: [upload])
            throw error
        }
    }

    /// Marks `upload` complete and drops every other attempt of `blob`, in one transaction.
    private func complete(upload: String, blob: String, size: Int64, checksum: String) async throws {
        try await database.transaction { session in
            let older = try await session.raw(
                "SELECT upload_id FROM blob_uploads WHERE blob_id = \(bind: blob) AND upload_id <> \(bind: upload)"
            ).all().map { try $0.decode(column: "upload_id", as: String.self) }
            try await Self.delete(uploads: older, in: session)
            try await session.raw(
                """
                UPDATE blob_uploads SET complete = \(bind: true), size = \(bind: size), checksum = \(bind: checksum)
                WHERE upload_id = \(bind: upload)
                """
            ).run()
        }
    }

    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody? {
        guard let (upload, size) = try await completeUpload(of: id) else { return nil }
        guard let length = Int(exactly: size) else { throw ServerError.storage("the stored blob has a bad size") }
        let database = self.database
        return ResponseBody(contentLength: length) { writer in
            var sent: Int64 = 0
            var sequence: Int64 = 0
            var chunk = size > 0 ? try await Self.chunk(sequence, of: upload, in: database) : nil
            while let current = chunk {
                guard current.readableBytes > 0, Int64(current.readableBytes) <= size - sent else {
                    throw ServerError.storage("the stored blob does not match its size")
                }
                sent += Int64(current.readableBytes)
                sequence += 1
                // The next chunk is fetched while this one goes out.
                let (nextSequence, more) = (sequence, sent < size)
                async let next = more ? Self.chunk(nextSequence, of: upload, in: database) : nil
                try await writer.write(current)
                chunk = try await next
            }
            guard sent == size else { throw ServerError.storage("the stored blob ended early") }
            try await writer.finish(nil)
        }
    }

    /// Chunk `sequence` of `upload`; a missing chunk (the blob was removed while being read) is an error.
    private static func chunk(
        _ sequence: Int64,
        of upload: String,
        in database: any SQLDatabase
    ) async throws
        -> ByteBuffer
    {
        guard
            let data = try await database.raw(
                "SELECT data FROM blob_chunks WHERE upload_id = \(bind: upload) AND seq = \(bind: sequence)"
            ).first()?.decode(column: "data", as: Data.self)
        else {
            throw ServerError.storage("the blob was removed while being read")
        }
        return ByteBuffer(bytes: data)
    }

    /// The newest complete attempt of `blob` and its size.
    private func completeUpload(of blob: String) async throws -> (upload: String, size: Int64)? {
        guard
            let row = try await database.raw(
                """
                SELECT upload_id, size FROM blob_uploads WHERE blob_id = \(bind: blob) AND complete = \(bind: true)
                ORDER BY started DESC, upload_id LIMIT 1
                """
            ).first()
        else { return nil }
        return (try row.decode(column: "upload_id", as: String.self), try row.decode(column: "size", as: Int64.self))
    }

    func size(id: String) async throws -> Int64? { try await completeUpload(of: id)?.size }

    func remove(id: String) async throws {
        try await database.transaction { session in
            let uploads = try await session.raw("SELECT upload_id FROM blob_uploads WHERE blob_id = \(bind: id)")
                .all().map { try $0.decode(column: "upload_id", as: String.self) }
            try await Self.delete(uploads: uploads, in: session)
        }
    }

    func removeAbandonedUploads(startedBefore time: Timestamp) async throws -> Int {
        let abandoned = try await database.raw(
            """
            SELECT upload_id FROM blob_uploads WHERE complete = \(bind: false) AND started < \(bind: time.microseconds)
            """
        ).all().map { try $0.decode(column: "upload_id", as: String.self) }
        try await discard(uploads: abandoned)
        return abandoned.count
    }

    /// Deletes attempts and their chunks in one transaction.
    private func discard(uploads: [String]) async throws {
        guard !uploads.isEmpty else { return }
        try await database.transaction { try await Self.delete(uploads: uploads, in: $0) }
    }

    private static func delete(uploads: [String], in session: any SQLDatabase) async throws {
        for upload in uploads {
            try await session.raw("DELETE FROM blob_chunks WHERE upload_id = \(bind: upload)").run()
            try await session.raw("DELETE FROM blob_uploads WHERE upload_id = \(bind: upload)").run()
        }
    }
}

/// Cuts a stream into ``SQLBlobStore/chunkSize`` rows of one upload, holding at most one chunk.
private struct ChunkWriter {
    let database: any SQLDatabase
    let upload: String
    private var pending = ByteBuffer()
    private var sequence: Int64 = 0

    init(database: any SQLDatabase, upload: String) {
        self.database = database
        self.upload = upload
        pending.reserveCapacity(SQLBlobStore.chunkSize)
    }

    mutating func append(_ piece: ByteBuffer) async throws {
        var piece = piece
        while piece.readableBytes > 0 {
            let take = min(SQLBlobStore.chunkSize - pending.readableBytes, piece.readableBytes)
            guard var slice = piece.readSlice(length: take) else { return }
            pending.writeBuffer(&slice)
            if pending.readableBytes == SQLBlobStore.chunkSize { try await flush() }
        }
    }

    mutating func finish() async throws {
        if pending.readableBytes > 0 { try await flush() }
    }

    private mutating func flush() async throws {
        let data = Data(pending.readableBytesView)
        try await database.raw(
            "INSERT INTO blob_chunks (upload_id, seq, data) VALUES (\(bind: upload), \(bind: sequence), \(bind: data))"
        ).run()
        sequence += 1
        pending.clear()
    }
}
