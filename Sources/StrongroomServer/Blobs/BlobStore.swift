// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import Synchronization

/// Where encrypted file contents live. The server only ever sees ciphertext here.
protocol BlobStore: Sendable {
    /// Streams `body` into the blob `id`, refusing more than `maximumSize` bytes. Returns the size and the
    /// standard-base64 MD5 of what was stored. Nothing is visible under `id` unless the whole body arrived.
    func write(
        id: String,
        body: some AsyncSequence<ByteBuffer, any Error> & Sendable,
        maximumSize: Int64,
        context: StrongroomRequestContext
    ) async throws -> (size: Int64, checksum: String)

    /// A streaming response body for the blob, or nil when it does not exist.
    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody?

    /// The size of a stored blob, or nil.
    func size(id: String) -> Int64?

    /// Removes a blob (no error when it is missing).
    func remove(id: String)
}

/// Blobs as files in `<data directory>/blobs`, named by record ID (a UUID, so no path tricks reach the disk).
struct FileBlobStore: BlobStore {
    let directory: String
    private let fileIO = FileIO()

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }

    private func path(_ id: String) -> String {
        precondition(UUID(uuidString: id) != nil, "blob IDs are UUIDs")
        return directory + "/" + id
    }

    func write(
        id: String,
        body: some AsyncSequence<ByteBuffer, any Error> & Sendable,
        maximumSize: Int64,
        context: StrongroomRequestContext
    ) async throws -> (size: Int64, checksum: String) {
        let partial = path(id) + ".partial"
        let digest = RunningDigest(limit: maximumSize)
        do {
            try await fileIO.writeFile(contents: body.map { try digest.update($0) }, path: partial, context: context)
            // The upload is acknowledged after this returns: its bytes must be on disk first.
            try await BlockingExecutor.shared.run { _ throws(ServerError) in try Self.synchronize(partial) }
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, path(id)) == 0 else {
            unlink(partial)
            throw ServerError(.storage, "the blob could not be stored")
        }
        chmod(path(id), 0o600)
        // Makes the rename durable; the blob itself is already synced, so a failure here loses nothing acknowledged.
        try? await BlockingExecutor.shared.run { _ throws(ServerError) in try Self.synchronize(directory) }
        return digest.finish()
    }

    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody? {
        guard FileManager.default.fileExists(atPath: path(id)) else { return nil }
        return try await fileIO.loadFile(path: path(id), context: context)
    }

    func size(id: String) -> Int64? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path(id))  // missing means no blob
        return (attributes?[.size] as? NSNumber)?.int64Value
    }

    func remove(id: String) { unlink(path(id)) }

    /// `fsync` of a file or folder (blocking: run it on the ``BlockingExecutor``, off the event loops).
    private static func synchronize(_ path: String) throws(ServerError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ServerError(.storage, "the blob could not be synced")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw ServerError(.storage, "the blob could not be synced")
        }
    }
}

/// MD5 and size of a stream as it passes, with a size limit.
final class RunningDigest: Sendable {
    private struct State {
        var md5 = Insecure.MD5()
        var size: Int64 = 0
    }

    private let state = Mutex(State())
    private let limit: Int64

    init(limit: Int64) { self.limit = limit }

    func update(_ buffer: ByteBuffer) throws -> ByteBuffer {
        try state.withLock { state in
            state.size += Int64(buffer.readableBytes)
            guard state.size <= limit else {
                throw ServerError.tooLarge("the upload is larger than the declared size")
            }
            buffer.withUnsafeReadableBytes { state.md5.update(bufferPointer: $0) }
        }
        return buffer
    }

    func finish() -> (size: Int64, checksum: String) {
        state.withLock { state in (state.size, Data(state.md5.finalize()).base64EncodedString()) }
    }
}
