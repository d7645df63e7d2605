// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore

/// AWS Signature Version 4 for S3 requests (the `Authorization` header form), built from swift-crypto's HMAC-SHA256
/// and SHA-256. Known-answer vectors from botocore are in the server tests.
struct S3Signer: Sendable {
    /// What a signed request carries besides its body.
    struct Signed: Equatable {
        /// `/bucket/key`, percent-encoded as signed; the request must use exactly this path and query.
        var pathAndQuery: String
        /// Every header to send, including `authorization`, `x-amz-date` and `x-amz-content-sha256`.
        var headers: [(name: String, value: String)]

        static func == (lhs: Signed, rhs: Signed) -> Bool {
            lhs.pathAndQuery == rhs.pathAndQuery && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
        }
    }

    /// The payload hash of a body the request does not sign (its integrity then rests on TLS and, for file bodies,
    /// on the client's own authenticated encryption).
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    let accessKeyID: String
    let secretAccessKey: SecureBytes
    let region: String
    let service = "s3"

    /// Signs a request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - host: the `Host` header (host, and `:port` unless it is the scheme's default).
    ///   - path: the unencoded path, `/bucket` or `/bucket/key`.
    ///   - query: the query parameters, unencoded; a nil value is a bare key (`?uploads`).
    ///   - headers: further headers to sign and send (e.g. `content-type`), lowercase names.
    ///   - payloadHash: hex SHA-256 of the body, or ``unsignedPayload``.
    ///   - date: the signing time.
    func sign(
        method: String,
        host: String,
        path: String,
        query: [(String, String?)] = [],
        headers: [(String, String)] = [],
        payloadHash: String,
        date: Date
    ) -> Signed {
        let (amzDate, day) = Self.timestamps(date)
        let encodedPath = Self.encode(path, keepingSlash: true)
        var pairs: [(key: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1 ?? "")) }
        pairs.sort { $0.key == $1.key ? $0.value < $1.value : $0.key < $1.key }
        let canonicalQuery = pairs.map { $0.key + "=" + $0.value }.joined(separator: "&")
        var signedHeaders = headers.map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: .whitespaces)) }
        signedHeaders += [("host", host), ("x-amz-content-sha256", payloadHash), ("x-amz-date", amzDate)]
        signedHeaders.sort { $0.0 < $1.0 }
        let headerNames = signedHeaders.map(\.0).joined(separator: ";")
        let canonicalRequest = [
            method,
            encodedPath,
            canonicalQuery,
            signedHeaders.map { "\($0.0):\($0.1)\n" }.joined(),
            headerNames,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, SHA256.hash(data: Data(canonicalRequest.utf8)).hexString,
        ].joined(separator: "\n")
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day)).hexString
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(headerNames), Signature=\(signature)"
        var sent = signedHeaders.filter { $0.0 != "host" }
        sent.append(("authorization", authorization))
        return Signed(
            pathAndQuery: canonicalQuery.isEmpty ? encodedPath : "\(encodedPath)?\(canonicalQuery)",
            headers: sent.map { (name: $0.0, value: $0.1) }
        )
    }

    /// The day's signing key: HMAC chain over "AWS4" + secret, day, region, service, "aws4_request".
    private func signingKey(_ day: String) -> SymmetricKey {
        var seed = Array("AWS4".utf8)
        secretAccessKey.withUnsafeBytes { seed.append(contentsOf: $0) }
        defer { Wipe.bytes(&seed) }
        var key = SymmetricKey(data: seed)
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key))
        }
        return key
    }

    /// `yyyyMMdd'T'HHmmss'Z'` and `yyyyMMdd` in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: date)
        let day = String(
            format: "%04d%02d%02d",
            parts.year ?? 1970,
            parts.month ?? 1,
            parts.day ?? 1
        )
        let time = String(format: "%02d%02d%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        return ("\(day)T\(time)Z", day)
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` in paths), as SigV4 asks.
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        PercentEncoding.encode(text, keepingSlash: keepingSlash)
    }
}
