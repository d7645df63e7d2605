// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
package import Foundation
import NIOCore
import StrongroomCore
package import StrongroomServerS3
import Testing

/// A fresh bucket in the test object store: Ceph's RADOS Gateway started by `Scripts/radosgw.sh start`, whose URL
/// (`http://ACCESS:SECRET@host:port`) is in `STRONGROOM_TEST_S3_URL` (`Scripts/test.sh` sets it).
package struct TestBucket: Sendable {
    /// The object store's URL, when one is configured.
    package static let url: URLComponents? = ProcessInfo.processInfo.environment["STRONGROOM_TEST_S3_URL"]
        .flatMap { $0.isEmpty ? nil : URLComponents(string: $0) }

    /// Whether tests run against the object store: when one is configured, and always in CI (where a missing one
    /// fails the test with a message naming the script).
    package static var isAvailable: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    package let configuration: S3Configuration

    /// Creates a bucket with a random name; parts of `partSize` bytes (the smallest S3 allows by default, so that
    /// a few MiB already make a multipart upload).
    package static func make(partSize: Int = S3Configuration.minimumPartSize) async throws -> TestBucket {
        let url = try #require(
            url,
            "no object store: run `Scripts/radosgw.sh start` and set STRONGROOM_TEST_S3_URL (Scripts/test.sh does)"
        )
        return try await make(in: url, partSize: partSize)
    }

    /// Creates a bucket with a random name in the object store at `url` (`http://ACCESS:SECRET@host:port`).
    package static func make(
        in url: URLComponents,
        partSize: Int = S3Configuration.minimumPartSize
    ) async throws -> TestBucket {
        let endpoint = "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
        let configuration = try S3Configuration(
            endpoint: endpoint,
            bucket: "sr-test-" + SecureRandom.bytes(count: 8).withUnsafeBytes { Array($0) }.hexString,
            accessKeyID: url.user ?? "",
            secretAccessKey: SecureBytes(copying: Array((url.password ?? "").utf8)),
            partSize: partSize
        )
        try await S3Client(configuration: configuration).createBucket()
        return TestBucket(configuration: configuration)
    }

    package var client: S3Client { S3Client(configuration: configuration) }

    /// `strongroom-server` options for this bucket.
    package var arguments: [String] {
        [
            "--blob-store", "s3", "--s3-endpoint", configuration.endpoint.absoluteString, "--s3-bucket",
            configuration.bucket, "--s3-part-size-mib", String(configuration.partSize >> 20),
        ]
    }

    /// The credentials, as `strongroom-server` reads them.
    package var environment: [String: String] {
        [
            "STRONGROOM_S3_ACCESS_KEY_ID": configuration.accessKeyID,
            "STRONGROOM_S3_SECRET_ACCESS_KEY": configuration.secretAccessKey.withUnsafeBytes {
                String(decoding: $0, as: UTF8.self)
            },
        ]
    }

    /// Every object key and unfinished upload in the bucket.
    package func contents() async throws -> (keys: [String], uploads: Int) {
        (try await client.keys(prefix: ""), try await client.pendingUploads(prefix: "").count)
    }

    /// Copies every object of the bucket into `folder` (to be scanned with it); returns how many.
    package func copyObjects(into folder: URL) async throws -> Int {
        let keys = try await client.keys(prefix: "")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, key) in keys.enumerated() {
            let response = try #require(try await client.getObject(key: key))
            let body = try await response.body.collect(upTo: 64 << 20)
            try Data(body.readableBytesView).write(to: folder.appending(path: "s3-object-\(index)"))
        }
        return keys.count
    }
}
