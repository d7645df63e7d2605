// Strongroom — SPDX-License-Identifier: Apache-2.0

import Hummingbird
import Logging
import StrongroomCore

/// The one place errors from below become answers: a ``ServerError`` or any other `HTTPResponseError` (Hummingbird's
/// own 404s and 413s) passes through; anything else (a database, file-system or decoding error) is logged with its
/// detail and answered as a bare ``ServerError/Code/internal``, so no SQL text or file path reaches a response.
struct ErrorMappingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch is CancellationError {
            throw ServerError(.internal, "the request was cancelled")
        } catch {
            context.logger.error(
                "internal error",
                metadata: ["error": .string(String(reflecting: error)), "path": .string(request.uri.path)]
            )
            throw ServerError(.internal, "internal error")
        }
    }
}
