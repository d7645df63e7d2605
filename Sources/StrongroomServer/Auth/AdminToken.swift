// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomCore

/// The bearer token of the operator's routes (`GET /v1/admin/integrity`, `GET /metrics`); without one configured
/// those routes do not exist.
struct AdminToken: Sendable {
    let value: String?

    /// Throws 404 when no admin token is configured and 401 unless `request` carries it (compared in constant time).
    func require(_ request: Request) throws {
        guard let expected = value else { throw ServerError.notFound() }
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "),
            ConstantTime.equals(Array(header.utf8.dropFirst(7)), Array(expected.utf8))
        else { throw ServerError.unauthorized("the admin token is missing or wrong") }
    }
}

/// The admin routes' guard: ``AdminToken/require(_:)`` before the handler.
struct AdminTokenMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let token: AdminToken

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try token.require(request)
        return try await next(request, context)
    }
}
