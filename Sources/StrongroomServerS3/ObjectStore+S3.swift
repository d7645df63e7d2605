// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomServer

extension ObjectStore {
    /// File bodies as objects in the S3-compatible bucket `configuration` names (Ceph's RADOS Gateway, MinIO, AWS
    /// S3…), requests signed with AWS Signature V4, large bodies as multipart uploads. Opening checks that the
    /// bucket exists and the credentials may use it.
    public static func s3(_ configuration: S3Configuration) -> ObjectStore {
        ObjectStore {
            let blobs = S3BlobStore(configuration: configuration)
            try await blobs.checkBucket()
            return blobs
        }
    }
}
