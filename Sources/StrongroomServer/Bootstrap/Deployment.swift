// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomPKI
import StrongroomWire

/// What a server's configuration means for sharing one database with other instances.
struct Deployment {
    /// Where file bodies live.
    let blobStorage: BlobStorage
    /// Whether other instances may serve the same database (PostgreSQL).
    let isShareable: Bool
    /// The object store, for ``BlobStorage/s3``.
    let objectStore: ObjectStore?
    /// The configured CA folder; nil keeps the CA (if any) in the data directory, which no other instance sees.
    let caDirectory: String?
    let dataDirectory: String

    init(configuration: ServerConfiguration, engine: SQLServerStore.Engine) {
        blobStorage = configuration.blobStorage ?? (engine == .postgres ? .database : .folder)
        isShareable = engine == .postgres
        objectStore = configuration.objectStore
        caDirectory = configuration.caDirectory
        dataDirectory = configuration.dataDirectory
    }

    /// Refuses a configuration under which a second instance on the same PostgreSQL database would not see what
    /// this one keeps (file bodies in a local folder, a token key or a CA from the data directory), unless the
    /// configuration says this is the only instance.
    func check(tokenKeyIsShared: Bool, singleInstance: Bool) throws(ServerError) {
        guard isShareable, !singleInstance else { return }
        if blobStorage == .folder {
            throw ServerError(
                .configuration,
                "file bodies in a local folder are not seen by other instances on this PostgreSQL database: "
                    + "use --blob-store database or s3, or declare --single-instance"
            )
        }
        if !tokenKeyIsShared {
            throw ServerError(
                .configuration,
                "the token key comes from this instance's data directory, so other instances would refuse its tokens: "
                    + "give every instance the same --token-key-file or STRONGROOM_TOKEN_KEY, or declare --single-instance"
            )
        }
        if caDirectory == nil, CertificateAuthority.exists(in: dataDirectory) {
            throw ServerError(
                .configuration,
                "the CA's files are in this instance's data directory, so other instances could not issue or check "
                    + "its certificates: give every instance the same --ca-directory, or declare --single-instance"
            )
        }
    }

    /// The blob store this deployment uses, checked: an object store's bucket must exist.
    func makeBlobStore(store: SQLServerStore, dataDirectory: String, clock: ServerClock) async throws -> any BlobStore {
        switch blobStorage {
        case .folder:
            return try FileBlobStore(directory: dataDirectory + "/blobs")
        case .database:
            return SQLBlobStore(store: store, clock: clock)
        case .s3:
            guard let objectStore else {
                throw ServerError(.configuration, "--blob-store s3 needs --s3-endpoint and --s3-bucket")
            }
            return try await objectStore.open()
        }
    }
}

/// Removes what uploads that never finished left in the blob store (an instance killed mid-upload), if they started
/// more than `age` ago, and returns how many there were (`strongroom-server blobs sweep`). The server does the same
/// with the pending-file lifetime whenever a file is created.
///
/// - Parameters:
///   - store: the server's store.
///   - blobStorage: where file bodies live; nil picks the engine's default.
///   - objectStore: the object store, for ``BlobStorage/s3``.
///   - dataDirectory: the data directory (for the folder store).
///   - age: how old an unfinished upload must be; zero also removes uploads in progress on a running server.
package func removeAbandonedUploads(
    store: SQLServerStore,
    blobStorage: BlobStorage?,
    objectStore: ObjectStore? = nil,
    dataDirectory: String,
    olderThan age: Duration
) async throws -> Int {
    var configuration = ServerConfiguration(dataDirectory: dataDirectory)
    configuration.blobStorage = blobStorage
    configuration.objectStore = objectStore
    let clock = ServerClock(configuration.clock)
    let blobs = try await Deployment(configuration: configuration, engine: store.engine)
        .makeBlobStore(store: store, dataDirectory: dataDirectory, clock: clock)
    let cutoff = clock.timestamp().microseconds.addingSaturating(-age.microseconds)
    return try await blobs.removeAbandonedUploads(startedBefore: Timestamp(microseconds: cutoff))
}
