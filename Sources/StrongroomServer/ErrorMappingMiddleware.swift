// Strongroom — SPDX-License-Identifier: Apache-2.0

import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import StrongroomCore

#if canImport(Glibc)
import Glibc
#endif

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
        } catch let error as HTTPParserError {
            // The client's own framing (a malformed chunk size, say) while its body was read: its fault, not ours.
            context.logger.info(
                "malformed HTTP request",
                metadata: ["error": .string("\(error)"), "path": .string(request.uri.path)]
            )
            throw ServerError.badRequest("the request's HTTP framing is malformed")
        } catch let error where Self.isDiskFull(error) {
            context.logger.error(
                "the disk or database is full",
                metadata: ["error": .string(String(reflecting: error)), "path": .string(request.uri.path)]
            )
            throw ServerError(.storageFull, "the server's storage is full; nothing was written")
        } catch let error where Self.isDatabaseUnavailable(error) {
            context.logger.warning(
                "the database cannot be reached",
                metadata: ["error": .string(String(reflecting: error)), "path": .string(request.uri.path)]
            )
            throw ServerError(.databaseUnavailable, "the database cannot be reached; nothing was written, try again")
        } catch let error where Self.isClientGone(error) {
            // The client went away mid-request (a cut upload): nothing failed here, and nobody reads the answer.
            context.logger.info(
                "the client went away",
                metadata: ["error": .string("\(error)"), "path": .string(request.uri.path)]
            )
            throw ServerError.badRequest("the client closed the connection before the request was complete")
        } catch {
            context.logger.error(
                "internal error",
                metadata: ["error": .string(String(reflecting: error)), "path": .string(request.uri.path)]
            )
            throw ServerError(.internal, "internal error")
        }
    }

    /// Whether `error` says the disk or the database is full: SQLite's `SQLITE_FULL` (sqlite-nio's `.full` reason,
    /// "database or disk is full"), PostgreSQL's SQLSTATE 53100 `disk_full`, or `ENOSPC` from a blob write. The
    /// drivers' error types are matched by what they print, as neither is a dependency of this module.
    static func isDiskFull(_ error: any Error) -> Bool {
        if let io = error as? IOError { return io.errnoCode == ENOSPC }
        let text = String(reflecting: error)
        return text.contains("database or disk is full") || text.contains("53100")
            || text.contains("No space left on device")
    }

    /// Whether `error` says the database server cannot be reached: PostgresNIO's connection failures
    /// (`connectionError`, `serverClosedConnection`, `uncleanShutdown`; SQLSTATE 57P01–57P03: shutting down, cannot
    /// connect now) and AsyncKit's pool timeout. Matched by what they print,
    /// like ``isDiskFull(_:)``: the drivers are not dependencies of this module.
    static func isDatabaseUnavailable(_ error: any Error) -> Bool {
        let text = String(reflecting: error)
        if text.contains("ConnectionPoolTimeoutError") { return true }
        guard text.hasPrefix("PSQLError(") else { return false }
        return [
            "code: connectionError", "code: serverClosedConnection", "code: uncleanShutdown", "57P01", "57P02", "57P03",
        ].contains { text.contains($0) }
    }

    /// Whether `error` says the connection closed under the request (end of file, reset, broken pipe).
    static func isClientGone(_ error: any Error) -> Bool {
        if let channel = error as? ChannelError {
            return channel == .eof || channel == .ioOnClosedChannel || channel == .alreadyClosed
                || channel == .outputClosed || channel == .inputClosed
        }
        if let io = error as? IOError { return [ECONNRESET, EPIPE, ECONNABORTED].contains(io.errnoCode) }
        return false
    }
}
