// Strongroom — SPDX-License-Identifier: Apache-2.0

/// An object store outside the server's database and data directory, for ``BlobStorage/s3``: made by the
/// `StrongroomServerS3` module (`ObjectStore.s3(_:)`), so that this module links no HTTP client of its own.
public struct ObjectStore: Sendable {
    /// Opens the store, checking that it is usable (a configuration error when it is not).
    package let open: @Sendable () async throws -> any BlobStore

    package init(open: @escaping @Sendable () async throws -> any BlobStore) { self.open = open }
}
