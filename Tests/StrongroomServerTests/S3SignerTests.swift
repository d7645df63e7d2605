// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Testing

@testable import StrongroomServer
@testable import StrongroomServerS3

/// Signature V4 against botocore's `S3SigV4Auth` (`Vectors/s3-sigv4.json`, made by `Scripts/vectors/s3_sigv4.py`),
/// and the object-store configuration's checks.
@Suite struct S3SignerTests {
    struct File: Decodable {
        var generator: String
        var accessKeyID: String
        var secretAccessKey: String
        var cases: [Case]
    }

    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var method: String
        var host: String
        var path: String
        var query: [[String?]]
        var headers: [[String]]
        var payloadHash: String
        var date: Int
        var region: String
        var pathAndQuery: String
        var authorization: String
        var amzDate: String
        var testDescription: String { name }
    }

    static let file: File = {
        guard let url = Bundle.module.url(forResource: "Vectors/s3-sigv4", withExtension: "json"),
            let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data)
        else { return File(generator: "missing", accessKeyID: "", secretAccessKey: "", cases: []) }
        return file
    }()

    @Test("the vectors file is there")
    func vectorsPresent() {
        #expect(Self.file.cases.count >= 6, "Vectors/s3-sigv4.json is missing or unreadable")
    }

    @Test("each request is signed exactly as botocore signs it", arguments: file.cases)
    func matchesBotocore(_ vector: Case) throws {
        let signer = S3Signer(
            accessKeyID: Self.file.accessKeyID,
            secretAccessKey: SecureBytes(copying: Array(Self.file.secretAccessKey.utf8)),
            region: vector.region
        )
        let signed = signer.sign(
            method: vector.method,
            host: vector.host,
            path: vector.path,
            query: try vector.query.map { pair in (try #require(pair.first ?? nil), pair.count > 1 ? pair[1] : nil) },
            headers: try vector.headers.map { (try #require($0.first), try #require($0.last)) },
            payloadHash: vector.payloadHash,
            date: Date(timeIntervalSince1970: TimeInterval(vector.date))
        )
        #expect(signed.pathAndQuery == vector.pathAndQuery)
        let headers = Dictionary(signed.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        #expect(headers["authorization"] == vector.authorization)
        #expect(headers["x-amz-date"] == vector.amzDate)
        #expect(headers["x-amz-content-sha256"] == vector.payloadHash)
        #expect(headers["host"] == nil, "the HTTP client sets Host itself")
    }

    @Test("a configuration S3 or the server would refuse is a typed configuration error")
    func badConfigurations() {
        let secret = SecureBytes(copying: Array("secret".utf8))
        let bad: [(String, String, String, String, Int)] = [
            ("ftp://host", "bucket", "us-east-1", "", 16 << 20),
            ("http://host/path", "bucket", "us-east-1", "", 16 << 20),
            ("http://user@host", "bucket", "us-east-1", "", 16 << 20),
            ("http://host", "Bucket", "us-east-1", "", 16 << 20),
            ("http://host", "ab", "us-east-1", "", 16 << 20),
            ("http://host", "bucket-", "us-east-1", "", 16 << 20),
            ("http://host", "bucket", "", "", 16 << 20),
            ("http://host", "bucket", "us east", "", 16 << 20),
            ("http://host", "bucket", "us-east-1", "a b", 16 << 20),
            ("http://host", "bucket", "us-east-1", "../", 16 << 20),
            ("http://host", "bucket", "us-east-1", "a//b/", 16 << 20),
            ("http://host", "bucket", "us-east-1", "/a/", 16 << 20),
            ("http://host", "bucket", "us-east-1", "a/..", 16 << 20),
            ("http://host", "bucket", "us-east-1", "", 4 << 20),
            ("http://host", "bucket", "us-east-1", "", 513 << 20),
        ]
        for (endpoint, bucket, region, prefix, part) in bad {
            #expect(throws: ServerError.self, "\(endpoint) \(bucket) \(region) \(prefix) \(part)") {
                try S3Configuration(
                    endpoint: endpoint,
                    bucket: bucket,
                    region: region,
                    accessKeyID: "AK",
                    secretAccessKey: secret,
                    keyPrefix: prefix,
                    partSize: part
                )
            }
        }
        #expect(throws: ServerError.self) {
            try S3Configuration.fromEnvironment(endpoint: "http://host", bucket: "bucket", environment: [:])
        }
        let good = try? S3Configuration.fromEnvironment(
            endpoint: "https://s3.example.org:9000",
            bucket: "my.bucket-1",
            keyPrefix: "prod/",
            environment: ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s3cr3t"]
        )
        #expect(good?.accessKeyID == "AKID")
        #expect(good?.secretAccessKey == SecureBytes(copying: Array("s3cr3t".utf8)))
    }
}
