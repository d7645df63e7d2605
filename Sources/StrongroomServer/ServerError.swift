// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import HTTPTypes
public import Hummingbird
public import StrongroomCore
import StrongroomWire

/// An error the server answers with: an E3DB status code and a JSON body `{"error": "…", "code": "…"}`.
///
/// Messages never contain ciphertext, keys, tokens, record contents, SQL or file paths: errors from below (the
/// database, the file system) are mapped to ``Code/internal`` by the server's error-mapping middleware before they are
/// answered, and logged there instead.
public struct ServerError: StrongroomError, HTTPResponseError {
    /// What kind of failure this is, with the HTTP status and the machine-readable `code` it is answered with.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The `code` member of the JSON body, such as `bad_request`.
        public let name: String
        /// The HTTP status answered.
        public let status: HTTPResponse.Status

        private init(_ name: String, _ status: HTTPResponse.Status) {
            self.name = name
            self.status = status
        }

        /// The request is malformed or out of range (400).
        public static let badRequest = Code("bad_request", .badRequest)
        /// Missing or invalid credentials (401).
        public static let unauthorized = Code("unauthorized", .unauthorized)
        /// The caller may not do this (403).
        public static let forbidden = Code("forbidden", .forbidden)
        /// No such item, or not visible to the caller (404).
        public static let notFound = Code("not_found", .notFound)
        /// The server's integrity policy refuses this client (403): after a compromised report until an administrator
        /// clears it, otherwise until it checks in a better report.
        public static let integrityRefused = Code("integrity_refused", .forbidden)
        /// A stale version or a taken name (409).
        public static let conflict = Code("conflict", .conflict)
        /// A write sealed under an access-key generation the type has rotated past (409): the answer's
        /// `X-Strongroom-Key-Generation` names the current one; fetch the key again and seal anew.
        public static let staleKeyGeneration = Code("stale_key_generation", .conflict)
        /// A body or declared size above the limit (413).
        public static let tooLarge = Code("too_large", .contentTooLarge)
        /// A v2 search used up its work budget (400).
        public static let searchTooBroad = Code("search_too_broad", .badRequest)
        /// A quota (live notes) is used up (429).
        public static let quotaExceeded = Code("quota_exceeded", .tooManyRequests)
        /// Too many failed credential attempts from this source (429).
        public static let rateLimited = Code("rate_limited", .tooManyRequests)
        /// The server is still binding its listener (503).
        public static let starting = Code("starting", .serviceUnavailable)
        /// What an administration command would create exists already: a backup's folder, a restore's data
        /// directory (never answered to a request; `strongroom-server` exits 9, as the client CLI does).
        public static let exists = Code("exists", .conflict)
        /// Start-up configuration or the data directory is unusable (never answered to a request body).
        public static let configuration = Code("configuration", .internalServerError)
        /// The server's own storage failed (500).
        public static let storage = Code("storage", .internalServerError)
        /// The server's disk (or database) is full: nothing was written; the same request succeeds once an operator
        /// frees space, without a restart (507).
        public static let storageFull = Code("storage_full", .init(code: 507, reasonPhrase: "Insufficient Storage"))
        /// The database cannot be reached (PostgreSQL stopped, restarting or refusing connections): nothing was
        /// written; the same request succeeds once it is back, without a server restart, and `/ready` says so
        /// meanwhile (503).
        public static let databaseUnavailable = Code("database_unavailable", .serviceUnavailable)
        /// The S3 object store holding file bodies cannot be reached, or answers with its own server error: the
        /// upload or download failed and nothing became visible; the same request succeeds once the store is back,
        /// without a server restart (503). `/ready` does not follow it: record routes still work meanwhile.
        public static let objectStoreUnavailable = Code("object_store_unavailable", .serviceUnavailable)
        /// Anything else that failed inside the server (500); details are logged, never answered.
        public static let `internal` = Code("internal", .internalServerError)

        public var description: String { name }
    }

    public let code: Code
    public let context: ErrorContext
    /// The type's current key generation, answered in `X-Strongroom-Key-Generation` (``Code/staleKeyGeneration``).
    var keyGeneration: Int?

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    /// The HTTP status answered.
    public var status: HTTPResponse.Status { code.status }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(ErrorBody(error: message, code: code.name))
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if let keyGeneration, let name = HTTPField.Name(StrongroomHeader.keyGeneration) {
            headers[name] = String(keyGeneration)
        }
        if status == .unauthorized {
            headers[.wwwAuthenticate] = "Bearer realm=\"strongroom\", TSV1-ED25519-BLAKE2B realm=\"strongroom\""
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func badRequest(_ message: String) -> ServerError { ServerError(.badRequest, message) }
    static func unauthorized(_ message: String = "missing or invalid credentials") -> ServerError {
        ServerError(.unauthorized, message)
    }
    static func forbidden(_ message: String = "not allowed") -> ServerError { ServerError(.forbidden, message) }
    static func notFound(_ message: String = "not found") -> ServerError { ServerError(.notFound, message) }
    static func conflict(_ message: String) -> ServerError { ServerError(.conflict, message) }
    /// A write sealed under generation `sent` of a type now at `current`.
    static func staleKeyGeneration(sent: Int, current: Int) -> ServerError {
        var error = ServerError(
            .staleKeyGeneration,
            "sealed under key generation \(sent), but the type's key is at generation \(current) now: fetch it again"
        )
        error.keyGeneration = current
        return error
    }
    package static func tooLarge(_ message: String) -> ServerError { ServerError(.tooLarge, message) }
    /// A start-up or storage failure of the server's own (its message may name the server's paths; it is never a
    /// response to a request body).
    package static func storage(_ message: String) -> ServerError { ServerError(.storage, message) }
}
