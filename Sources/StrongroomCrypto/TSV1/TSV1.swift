// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// "Tozny Signature Version 1": Ed25519-signed HTTP requests.
///
/// ```
/// header         = "TSV1-ED25519-BLAKE2B; {publicKey}; {unixTime}; {nonce}; uid:{clientID}"
/// string_to_hash = "{path}; {query}; {METHOD}; {header}"
/// Authorization  = header "; " b64url(Ed25519(BLAKE2b-256(string_to_hash)))
/// ```
/// The request body is not signed. Strongroom signs the path as sent (percent-encoded) and the query in the
/// Python SDK's canonical form; verification also accepts the forms the other official SDKs sign.
public enum TSV1 {
    /// The scheme name that starts every TSV1 header.
    public static let scheme = "TSV1-ED25519-BLAKE2B"

    /// The parts of an HTTP request that a TSV1 signature covers.
    public struct Request: Sendable, Hashable {
        /// The HTTP method, such as `GET`.
        public var method: String
        /// The path exactly as sent on the wire (percent-encoded), such as `/v1/storage/records`.
        public var path: String
        /// The raw query string without the `?`, or `""`.
        public var query: String

        /// Describes a request to sign or verify.
        public init(method: String, path: String, query: String = "") {
            self.method = method
            self.path = path
            self.query = query
        }
    }

    /// Builds the `Authorization` header value for `request` with a given timestamp and nonce.
    ///
    /// - Parameters:
    ///   - request: the method, path and query to sign.
    ///   - clientID: the client's ID (lowercase UUID), or `""` for an anonymous call.
    ///   - signingKey: the client's Ed25519 signing key.
    ///   - timestamp: Unix time in seconds.
    ///   - nonce: a fresh value per request (a lowercase UUID).
    public static func authorization(
        for request: Request,
        clientID: String,
        signingKey: SigningPrivateKey,
        timestamp: Int64,
        nonce: String
    ) -> String {
        let header = "\(scheme); \(signingKey.publicKey.base64URLEncoded); \(timestamp); \(nonce); uid:\(clientID)"
        let digest = hash(
            path: request.path,
            query: QueryCanonicalizer.python(request.query),
            method: request.method,
            header: header
        )
        let signature = digest.withUnsafeBytes { signingKey.signature(forRaw: $0) }
        return header + "; " + Base64URL.encode(signature)
    }

    /// Builds the `Authorization` header value for `request` at the clock's current time with a random nonce.
    public static func authorization(
        for request: Request,
        clientID: String,
        signingKey: SigningPrivateKey,
        clock: some WallClock = .system,
        random: some RandomSource = .system
    ) -> String {
        authorization(
            for: request,
            clientID: clientID,
            signingKey: signingKey,
            timestamp: Int64(clock.now.timeIntervalSince1970.rounded(.down)),
            nonce: SecureRandom.uuid(using: random).uuidString.lowercased()
        )
    }

    /// Verifies a TSV1 `Authorization` header against `request`.
    ///
    /// The signature is checked against every path and query form an official SDK signs (Python/Go, JS,
    /// e3db-swift, Java) — the decoded forms only where decoding cannot change which request it is. Replay protection is the caller's: keep the returned header's
    /// ``Header/publicKey`` and ``Header/nonce`` for the length of the window.
    ///
    /// - Returns: the parsed, verified header.
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a malformed header, ``CryptoError/Code/expired`` when the
    ///   timestamp is further than `window` from `now`, ``CryptoError/Code/invalidSignature`` when no form
    ///   verifies.
    public static func verify(
        _ authorization: String,
        for request: Request,
        now: Date,
        window: Duration = .seconds(300)
    ) throws(CryptoError) -> Header {
        let header = try Header(parsing: authorization)
        guard Self.isWithinWindow(header.timestamp, now: now, window: window) else {
            throw CryptoError(.expired, "the TSV1 timestamp is outside the accepted window")
        }
        // The decoded forms only where decoding cannot change the request's structure: a path with an encoded `/`
        // or `?`, or a query with an encoded `&`, `=` or `%`, is checked in its encoded forms alone, so that one
        // signature never authenticates two different requests (`a=1%26b%3D2` and `a=1&b=2`).
        var paths = [request.path]
        if !Self.encodes(["2F", "3F", "25"], in: request.path) {
            paths.append(QueryCanonicalizer.percentDecode(request.path.utf8))
        }
        var queries = [QueryCanonicalizer.python(request.query), QueryCanonicalizer.rawSortedByKey(request.query)]
        if !Self.encodes(["26", "3D", "25"], in: request.query) {
            queries.append(QueryCanonicalizer.decodedSortedWhole(request.query))
        }
        var candidates: [(String, String)] = []
        for path in paths {
            for query in queries where !candidates.contains(where: { $0 == (path, query) }) {
                candidates.append((path, query))
            }
        }
        for (path, query) in candidates {
            let digest = hash(path: path, query: query, method: request.method, header: header.signedHeader)
            if header.publicKey.isValidSignature(header.signature, for: digest) { return header }
        }
        throw CryptoError(.invalidSignature, "the TSV1 signature does not match this request")
    }

    /// Whether `text` holds a percent escape of one of `codes` (two hex digits each, either case).
    static func encodes(_ codes: [String], in text: String) -> Bool {
        let upper = text.uppercased()
        return codes.contains { upper.contains("%" + $0) }
    }

    /// Whether `timestamp` (Unix seconds, any `Int64` a caller sent) lies within `window` of `now`.
    ///
    /// Computed without overflow: a timestamp such as `Int64.min` is simply outside the window.
    static func isWithinWindow(_ timestamp: Int64, now: Date, window: Duration) -> Bool {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        guard let nowSeconds = Int64(exactly: seconds) else { return false }
        let (difference, overflow) = nowSeconds.subtractingReportingOverflow(timestamp)
        guard !overflow else { return false }
        return difference.magnitude <= window.components.seconds.magnitude
    }

    /// BLAKE2b-256 of `"{path}; {query}; {method}; {header}"`.
    static func hash(path: String, query: String, method: String, header: String) -> [UInt8] {
        let text = "\(path); \(query); \(method); \(header)"
        return Array(text.utf8).withUnsafeBytes { Sodium.Sign.blake2b256($0) }
    }
}
