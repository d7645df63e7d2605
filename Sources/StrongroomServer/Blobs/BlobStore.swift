// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Hummingbird
package import NIOCore
package import StrongroomWire

/// Where encrypted file contents live. The server only ever sees ciphertext here. Every backend streams both ways
/// in constant memory and makes a blob visible only once its whole body has arrived and been made durable.
package protocol BlobStore: Sendable {
    /// Streams `body` into the blob `id`, refusing more than `maximumSize` bytes. Returns the size and the
    /// standard-base64 MD5 of what was stored. Nothing is visible under `id` unless the whole body arrived; a new
    /// complete body replaces an older one.
    func write(
        id: String,
        body: some AsyncSequence<ByteBuffer, any Error> & Sendable,
        maximumSize: Int64,
        context: StrongroomRequestContext
    ) async throws -> (size: Int64, checksum: String)

    /// A streaming response body for the blob, or nil when it does not exist.
    func read(id: String, context: StrongroomRequestContext) async throws -> ResponseBody?

    /// The size of a stored blob, or nil.
    func size(id: String) async throws -> Int64?

    /// Removes a blob (no error when it is missing).
    func remove(id: String) async throws

    /// Removes what uploads that never finished left behind (an instance killed mid-upload) if they started before
    /// `time`, and returns how many there were.
    func removeAbandonedUploads(startedBefore time: Timestamp) async throws -> Int
}

/// Where a server keeps file bodies.
public enum BlobStorage: String, Sendable, CaseIterable {
    /// Files in `<data directory>/blobs`: the embedded default, one instance only.
    case folder
    /// Chunked rows in the server's own database, beside the metadata (one backup holds everything): what several
    /// instances behind one PostgreSQL share.
    case database
    /// Objects in an S3-compatible bucket (``ServerConfiguration/objectStore``): what instances share when file
    /// bodies should live outside the database.
    case s3
}
