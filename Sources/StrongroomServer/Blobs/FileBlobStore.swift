// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import StrongroomWire

/// Blobs as files in `<data directory>/blobs`, named by record ID (a UUID, so no path tricks reach the disk).
struct FileBlobStore: BlobStore {
    let directory: String
    private let fileIO = FileIO()

    init(directory: String) throws {
        self.directory = directory
        try DataDirectory.createFolder(directory, naming: "the blob folder \(directory)")
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
            try await BlockingExecutor.shared.run { _ throws(ServerError) in try synchronize(partial) }
        } catch {
            unlink(partial)
            // Hummingbird's file writer wraps the error the digest threw: the caller must still learn it was 413.
            throw digest.isOverLimit ? RunningDigest.overLimit : error
        }
        guard rename(partial, path(id)) == 0 else {
            unlink(partial)
            throw ServerError(.storage, "the blob could not be stored")
        }
        chmod(path(id), 0o600)
        // Makes the rename durable; the blob itself is already synced, so a failure here loses nothing acknowledged.
        try? await BlockingExecutor.shared.run { _ throws(ServerError) in try synchronize(directory) }
        return digest.finish()
    }

    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody? {
        guard FileManager.default.fileExists(atPath: path(id)) else { return nil }
        return try await fileIO.loadFile(path: path(id), context: context)
    }

    func size(id: String) async throws -> Int64? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path(id))  // missing means no blob
        return (attributes?[.size] as? NSNumber)?.int64Value
    }

    func remove(id: String) async throws { unlink(path(id)) }

    func removeAbandonedUploads(startedBefore time: Timestamp) async throws -> Int {
        let cutoff = Date(timeIntervalSince1970: Double(time.microseconds / 1_000_000))
        var removed = 0
        // A folder that cannot be listed has nothing to clean.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasSuffix(".partial") {
            let path = directory + "/" + name
            // The file went between listing and stat: nothing to remove.
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < cutoff, unlink(path) == 0 { removed += 1 }
        }
        return removed
    }
}
