// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import StrongroomCore
import Testing

@testable import StrongroomCrypto

/// TSV1 headers against the Python SDK (`Vectors/e3db-python/tsv1.json`, including both vectors of the spec §2.2).
@Suite struct TSV1Tests {
    struct File: Decodable {
        struct Case: Decodable {
            let method, path, query, nonce, authorization: String
            let timestamp: Int64
            let clientID: String?
        }
        let privateSigningKey, publicSigningKey, clientID: String
        let cases: [Case]
    }

    let file: File
    let key: SigningPrivateKey

    init() throws {
        file = try Vectors.load(File.self, "e3db-python/tsv1.json")
        key = try SigningPrivateKey(base64URLEncoded: file.privateSigningKey)
    }

    @Test("builds headers byte-identical to the Python SDK's")
    func signsLikePython() {
        #expect(key.publicKey.base64URLEncoded == file.publicSigningKey)
        for item in file.cases {
            let header = TSV1.authorization(
                for: .init(method: item.method, path: item.path, query: item.query),
                clientID: item.clientID ?? file.clientID,
                signingKey: key,
                timestamp: item.timestamp,
                nonce: item.nonce
            )
            #expect(header == item.authorization, "\(item.method) \(item.path)?\(item.query)")
        }
    }

    @Test("verifies every Python header within the window")
    func verifiesPython() throws {
        for item in file.cases {
            let header = try TSV1.verify(
                item.authorization,
                for: .init(method: item.method, path: item.path, query: item.query),
                now: Date(timeIntervalSince1970: TimeInterval(item.timestamp + 100))
            )
            #expect(header.publicKey == key.publicKey)
            #expect(header.nonce == item.nonce)
            #expect(header.clientID == (item.clientID ?? file.clientID))
        }
    }

    @Test("accepts the query forms the other SDKs sign")
    func otherSDKForms() throws {
        // e3db-swift signs the percent-decoded path and raw segments sorted by key.
        let request = TSV1.Request(method: "GET", path: "/a%20b/c", query: "z=2&a=x%2Fy")
        let header = "TSV1-ED25519-BLAKE2B; \(key.publicKey.base64URLEncoded); 1700000000; n; uid:ABC"
        let digest = blake2b("/a b/c; a=x%2Fy&z=2; GET; \(header)")
        let authorization = header + "; " + Base64URL.encode(key.signature(for: digest))
        let verified = try TSV1.verify(authorization, for: request, now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(verified.clientID == "ABC")
    }

    @Test("one signature never authenticates two requests: decoded forms are tried only where decoding is unambiguous")
    func decodedFormsAreUnambiguous() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        // Signed for `a=1&b=2` (two parameters), presented with `a=1%26b%3D2` (one parameter whose value is `1&b=2`).
        let header = "TSV1-ED25519-BLAKE2B; \(key.publicKey.base64URLEncoded); 1700000000; n2; uid:ABC"
        let signed = header + "; " + Base64URL.encode(key.signature(for: blake2b("/v1/x; a=1&b=2; GET; \(header)")))
        #expect(throws: CryptoError.self) {
            try TSV1.verify(signed, for: .init(method: "GET", path: "/v1/x", query: "a=1%26b%3D2"), now: now)
        }
        _ = try TSV1.verify(signed, for: .init(method: "GET", path: "/v1/x", query: "a=1&b=2"), now: now)
        // Signed for the path `/v1/a/b`, presented as the one segment `/v1/a%2Fb`.
        let pathHeader = "TSV1-ED25519-BLAKE2B; \(key.publicKey.base64URLEncoded); 1700000000; n3; uid:ABC"
        let pathSigned =
            pathHeader + "; " + Base64URL.encode(key.signature(for: blake2b("/v1/a/b; ; GET; \(pathHeader)")))
        #expect(throws: CryptoError.self) {
            try TSV1.verify(pathSigned, for: .init(method: "GET", path: "/v1/a%2Fb"), now: now)
        }
        _ = try TSV1.verify(pathSigned, for: .init(method: "GET", path: "/v1/a/b"), now: now)
    }

    @Test("a header built now with a fixed clock and seed is reproducible")
    func injectedClockAndRandomness() {
        let request = TSV1.Request(method: "GET", path: "/v1/storage/clients/x")
        let make = {
            TSV1.authorization(
                for: request,
                clientID: "c",
                signingKey: key,
                clock: FixedWallClock(unixTime: 1_700_000_000),
                random: SeededRandomSource(repeating: 1)
            )
        }
        #expect(make() == make())
        #expect(make().contains("; 1700000000; "))
    }

    @Test("rejects an expired or future timestamp")
    func window() throws {
        let item = try #require(file.cases.first)
        let request = TSV1.Request(method: item.method, path: item.path, query: item.query)
        for offset in [-301, 301] as [Int64] {
            let error = #expect(throws: CryptoError.self) {
                try TSV1.verify(
                    item.authorization,
                    for: request,
                    now: Date(timeIntervalSince1970: TimeInterval(item.timestamp + offset))
                )
            }
            #expect(error?.code == .expired)
        }
    }

    @Test(
        "a header that does not match the request fails",
        arguments: [
            ("GET", "/x/y%2Fz", "bar=baz&foo=quux"), ("POST", "/x/y/z", "bar=baz&foo=quux"),
            ("POST", "/x/y%2Fz", "bar=baz&foo=quu"), ("POST", "/x/y%2Fz", ""),
        ]
    )
    func mismatchedRequest(method: String, path: String, query: String) throws {
        let item = try #require(file.cases.first)
        let error = #expect(throws: CryptoError.self) {
            try TSV1.verify(
                item.authorization,
                for: .init(method: method, path: path, query: query),
                now: Date(timeIntervalSince1970: TimeInterval(item.timestamp))
            )
        }
        #expect(error?.code == .invalidSignature)
    }

    @Test("every flipped character of a header is rejected with a typed error")
    func tampered() throws {
        let item = try #require(file.cases.first)
        let request = TSV1.Request(method: item.method, path: item.path, query: item.query)
        let characters = Array(item.authorization)
        for index in characters.indices {
            var changed = characters
            changed[index] = changed[index] == "A" ? "B" : "A"
            let text = String(changed)
            #expect(throws: CryptoError.self, "position \(index)") {
                try TSV1.verify(text, for: request, now: Date(timeIntervalSince1970: TimeInterval(item.timestamp)))
            }
        }
    }

    @Test(
        "malformed headers are format errors",
        arguments: [
            "", "Bearer abc", "TSV1-ED25519-BLAKE2B; a; b; c; d", "TSV1-ED25519-BLAKE2B; a; 1; n; uid:x; s; extra",
            "TSV1-ED25519-BLAKE2B; n-cCkZPYKKD_aTdywSdvASFvX2ffmWTy1bB7bj6pEUk; x; n; uid:x; sig",
            "TSV1-ED25519-BLAKE2B; n-cCkZPYKKD_aTdywSdvASFvX2ffmWTy1bB7bj6pEUk; 1; n; id:x; sig",
            "TSV1-ED25519-BLAKE2B; short; 1; n; uid:x; sig",
        ]
    )
    func malformed(header: String) {
        let error = #expect(throws: CryptoError.self) { try TSV1.Header(parsing: header) }
        #expect(error?.code == .invalidFormat)
    }

    /// BLAKE2b-256, the primitive checked against PyNaCl in ``PrimitiveVectorTests``.
    private func blake2b(_ text: String) -> [UInt8] {
        Array(text.utf8).withUnsafeBytes { Sodium.Sign.blake2b256($0) }
    }
}
