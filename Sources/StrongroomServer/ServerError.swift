// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import Hummingbird
import StrongroomWire

/// An error the server answers with: an E3DB status code and a JSON body `{"error": "…", "code": "…"}`.
///
/// Messages never contain ciphertext, keys, tokens or record contents.
public struct ServerError: HTTPResponseError, Sendable, CustomStringConvertible {
    /// The HTTP status answered.
    public var status: HTTPResponse.Status
    /// What went wrong, for people; never secrets or user data.
    public var message: String
    /// A stable, machine-readable code (`bad_request`, `unauthorized`, `forbidden`, `not_found`, `conflict`, …).
    public var code: String

    /// Creates an error answered with `status`.
    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(ErrorBody(error: message, code: code))
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .unauthorized {
            headers[.wwwAuthenticate] = "Bearer realm=\"strongroom\", TSV1-ED25519-BLAKE2B realm=\"strongroom\""
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func badRequest(_ message: String) -> ServerError { ServerError(.badRequest, "bad_request", message) }
    static func unauthorized(_ message: String = "missing or invalid credentials") -> ServerError {
        ServerError(.unauthorized, "unauthorized", message)
    }
    static func forbidden(_ message: String = "not allowed") -> ServerError {
        ServerError(.forbidden, "forbidden", message)
    }
    static func notFound(_ message: String = "not found") -> ServerError {
        ServerError(.notFound, "not_found", message)
    }
    static func conflict(_ message: String) -> ServerError { ServerError(.conflict, "conflict", message) }
    static func tooLarge(_ message: String) -> ServerError { ServerError(.contentTooLarge, "too_large", message) }
    /// A start-up or storage failure of the server's own (its message may name the server's paths; it is never a
    /// response to a request body).
    static func storage(_ message: String) -> ServerError { ServerError(.internalServerError, "storage", message) }
}
