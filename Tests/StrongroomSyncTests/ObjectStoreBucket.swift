// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import StrongroomCore
import Testing

@testable import StrongroomServerS3

/// A fresh bucket in the test object store (Ceph's RADOS Gateway, `Scripts/radosgw.sh start`; its
/// `http://ACCESS:SECRET@host:port` in `STRONGROOM_TEST_S3_URL`, which `Scripts/test.sh` sets), for a
/// `strongroom-server` process whose file bodies live there.
struct ObjectStoreBucket {
    static let url: URLComponents? = ProcessInfo.processInfo.environment["STRONGROOM_TEST_S3_URL"]
        .flatMap { $0.isEmpty ? nil : URLComponents(string: $0) }

    /// Whether to test against the object store: when one is configured, and always in CI.
    static var isAvailable: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    let configuration: S3Configuration

    static func make() async throws -> ObjectStoreBucket {
        let url = try #require(url, "no object store: run `Scripts/radosgw.sh start` and set STRONGROOM_TEST_S3_URL")
        let configuration = try S3Configuration(
            endpoint: "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)",
            bucket: "sr-sync-" + SecureRandom.bytes(count: 8).withUnsafeBytes { Array($0) }.hexString,
            accessKeyID: url.user ?? "",
            secretAccessKey: SecureBytes(copying: Array((url.password ?? "").utf8))
        )
        try await S3Client(configuration: configuration).createBucket()
        return ObjectStoreBucket(configuration: configuration)
    }

    /// `strongroom-server` options and environment for this bucket.
    var arguments: [String] {
        [
            "--blob-store", "s3", "--s3-endpoint", configuration.endpoint.absoluteString, "--s3-bucket",
            configuration.bucket,
        ]
    }

    var environment: [String: String] {
        [
            "STRONGROOM_S3_ACCESS_KEY_ID": configuration.accessKeyID,
            "STRONGROOM_S3_SECRET_ACCESS_KEY": configuration.secretAccessKey.withUnsafeBytes {
                String(decoding: $0, as: UTF8.self)
            },
        ]
    }

    /// Copies every object of the bucket into `folder` (to be scanned with it); returns how many.
    func copyObjects(into folder: URL) async throws -> Int {
        let client = S3Client(configuration: configuration)
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
