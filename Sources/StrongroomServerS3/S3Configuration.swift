// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCore
import StrongroomServer

/// Where `--blob-store s3` keeps file bodies: one bucket of an S3-compatible object store (AWS S3, Ceph's RADOS
/// Gateway, …), addressed path-style (`endpoint/bucket/key`) and signed with AWS Signature Version 4.
///
/// Every instance of a deployment names the same bucket and prefix. The credentials come from the environment
/// (``fromEnvironment(endpoint:bucket:region:keyPrefix:partSize:environment:)``), never from a command-line flag,
/// which other users of the machine could read.
public struct S3Configuration: Sendable {
    /// The smallest part the S3 API accepts, except for an upload's last part.
    public static let minimumPartSize = 5 << 20
    /// The largest part this server holds in memory.
    public static let maximumPartSize = 512 << 20

    /// The scheme, host and port of the object store, e.g. `https://s3.eu-west-1.amazonaws.com`.
    public let endpoint: URL
    /// The bucket; it must exist (the server checks at start-up and never creates one).
    public let bucket: String
    /// The signing region (`us-east-1` for most S3-compatible stores).
    public let region: String
    /// The access key ID.
    public let accessKeyID: String
    /// The secret access key.
    public let secretAccessKey: SecureBytes
    /// Prepended to every object key, so that deployments can share a bucket (e.g. `prod/`); may be empty.
    public let keyPrefix: String
    /// Bytes per part of a multipart upload, and the largest body sent in one `PUT`. The server holds up to two
    /// parts of each upload in memory (one arriving while the previous one is sent).
    public let partSize: Int

    /// Checks and keeps an object-store configuration.
    ///
    /// - Throws: a `configuration` error naming what is wrong: an endpoint that is not `http(s)://host[:port]`, a
    ///   bucket name S3 would refuse, an empty region or credential, a prefix with characters other than letters,
    ///   digits and `/_.-`, or a part size outside 5–512 MiB.
    public init(
        endpoint: String,
        bucket: String,
        region: String = "us-east-1",
        accessKeyID: String,
        secretAccessKey: SecureBytes,
        keyPrefix: String = "",
        partSize: Int = 16 << 20
    ) throws {
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil,
            url.user == nil
        else {
            throw ServerError(.configuration, "the S3 endpoint must be http(s)://host[:port], without a path")
        }
        guard Self.isValidBucket(bucket) else {
            throw ServerError(.configuration, "the S3 bucket name must be 3-63 lowercase letters, digits, '.' or '-'")
        }
        guard !region.isEmpty, region.count <= 64,
            region.unicodeScalars.allSatisfy({ Self.isAlphanumeric($0) || $0 == "-" })
        else {
            throw ServerError(.configuration, "the S3 region must be letters, digits and '-'")
        }
        guard !accessKeyID.isEmpty, accessKeyID.count <= 128,
            accessKeyID.unicodeScalars.allSatisfy({ Self.isAlphanumeric($0) })
        else {
            throw ServerError(.configuration, "the S3 access key ID must be 1-128 letters and digits")
        }
        guard !secretAccessKey.isEmpty, secretAccessKey.count <= 256 else {
            throw ServerError(.configuration, "the S3 secret access key must hold 1-256 bytes")
        }
        // Path-style keys travel in the URL path, where "." and ".." segments or "//" could be normalised away.
        let segments = keyPrefix.split(separator: "/", omittingEmptySubsequences: false)
        guard keyPrefix.utf8.count <= 256,
            keyPrefix.unicodeScalars.allSatisfy({ Self.isAlphanumeric($0) || "/_.-".unicodeScalars.contains($0) }),
            segments.dropLast().allSatisfy({ !$0.isEmpty }),
            !segments.contains(where: { $0 == "." || $0 == ".." })
        else {
            throw ServerError(
                .configuration,
                "the S3 key prefix must be at most 256 letters, digits or '/_.-', without empty, '.' or '..' segments"
            )
        }
        guard (Self.minimumPartSize...Self.maximumPartSize).contains(partSize) else {
            throw ServerError(.configuration, "the S3 part size must be 5-512 MiB")
        }
        self.endpoint = url
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.keyPrefix = keyPrefix
        self.partSize = partSize
    }

    /// A configuration whose credentials come from `STRONGROOM_S3_ACCESS_KEY_ID` and
    /// `STRONGROOM_S3_SECRET_ACCESS_KEY`, or else the standard `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
    ///
    /// - Parameters:
    ///   - endpoint: the object store's `http(s)://host[:port]`.
    ///   - bucket: the bucket.
    ///   - region: the signing region.
    ///   - keyPrefix: prepended to every object key.
    ///   - partSize: bytes per multipart part.
    ///   - environment: where to read the credentials (the process environment by default).
    public static func fromEnvironment(
        endpoint: String,
        bucket: String,
        region: String = "us-east-1",
        keyPrefix: String = "",
        partSize: Int = 16 << 20,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> S3Configuration {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        guard let accessKeyID = value("STRONGROOM_S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"),
            let secret = value("STRONGROOM_S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY")
        else {
            throw ServerError(
                .configuration,
                "--blob-store s3 needs STRONGROOM_S3_ACCESS_KEY_ID and STRONGROOM_S3_SECRET_ACCESS_KEY "
                    + "(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) in the environment"
            )
        }
        return try S3Configuration(
            endpoint: endpoint,
            bucket: bucket,
            region: region,
            accessKeyID: accessKeyID,
            secretAccessKey: SecureBytes(copying: Array(secret.utf8)),
            keyPrefix: keyPrefix,
            partSize: partSize
        )
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private static func isValidBucket(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        guard (3...63).contains(scalars.count), let first = scalars.first, let last = scalars.last else { return false }
        let lowerOrDigit: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        return lowerOrDigit(first) && lowerOrDigit(last)
            && scalars.allSatisfy { lowerOrDigit($0) || $0 == "." || $0 == "-" }
    }
}
