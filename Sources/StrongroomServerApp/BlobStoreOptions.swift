// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomServer
import StrongroomServerS3

/// Where file bodies live (`serve` and `blobs sweep` share these).
struct BlobStoreOptions: ParsableArguments {
    @Option(
        help:
            "Where file bodies live: folder (<data>/blobs), database or s3. Default: folder on SQLite, database on PostgreSQL."
    )
    var blobStore: BlobStorage?
    @Option(
        help:
            "The S3-compatible object store, http(s)://host[:port] (with --blob-store s3). Credentials: STRONGROOM_S3_ACCESS_KEY_ID and STRONGROOM_S3_SECRET_ACCESS_KEY (or the AWS_ names)."
    )
    var s3Endpoint: String?
    @Option(help: "The bucket (it must exist; every instance names the same one).")
    var s3Bucket: String?
    @Option(help: "The signing region (default us-east-1).")
    var s3Region = "us-east-1"
    @Option(help: "Prepended to every object key, so that deployments can share a bucket (e.g. prod/).")
    var s3Prefix = ""
    @Option(help: "MiB per part of a multipart upload, 5 to 512 (default 16); up to two parts per upload in memory.")
    var s3PartSizeMib = 16

    func validate() throws {
        let s3Options = s3Endpoint != nil || s3Bucket != nil
        if blobStore == .s3, s3Endpoint == nil || s3Bucket == nil {
            throw ValidationError("--blob-store s3 needs --s3-endpoint and --s3-bucket")
        }
        if s3Options, blobStore != .s3 {
            throw ValidationError("--s3-endpoint and --s3-bucket go with --blob-store s3")
        }
        guard (5...512).contains(s3PartSizeMib) else { throw ValidationError("--s3-part-size-mib is 5 to 512") }
    }

    /// The object store, with credentials from the environment, when `--blob-store s3`.
    func objectStore() throws -> ObjectStore? {
        guard blobStore == .s3, let s3Endpoint, let s3Bucket else { return nil }
        return .s3(
            try S3Configuration.fromEnvironment(
                endpoint: s3Endpoint,
                bucket: s3Bucket,
                region: s3Region,
                keyPrefix: s3Prefix,
                partSize: s3PartSizeMib << 20
            )
        )
    }
}
