// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import Logging

/// The outermost middleware: one structured log line and the metrics of every request — method, route template,
/// status, latency and, once authenticated, the client ID. Never a query string (a presigned URL's signature is a
/// credential), a header or a body.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        metrics.started()
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
            record(request, context, status: status, since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let duration = ContinuousClock.now - start
        let method = request.method.rawValue
        let route = context.endpointPath ?? "unmatched"
        metrics.finished(method: method, route: route, status: status, duration: duration)
        guard context.logger.logLevel <= .info else { return }
        let milliseconds =
            Double(duration.components.seconds) * 1000
            + Double(duration.components.attoseconds / 1_000_000_000_000) / 1000
        var metadata: Logger.Metadata = [
            "method": .string(method), "route": .string(route), "status": .stringConvertible(status),
            "latency_ms": .stringConvertible(milliseconds),
        ]
        if let client = context.clientID { metadata["client_id"] = .string(client) }
        context.logger.info("request", metadata: metadata)
    }
}
