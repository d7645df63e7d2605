// Strongroom — SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird
import NIOCore

/// The routes for operators rather than clients: liveness, readiness and this API's description (open), and
/// Prometheus metrics (behind the admin token).
enum OperationRoutes {
    /// `GET /health` (the process runs), `GET /ready` (the database answers, schema current) and
    /// `GET /openapi.yaml`.
    static func health(readiness: Readiness) -> RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get("/health") { _, _ in try json(["status": "ok"]) }
        routes.get("/ready") { _, _ in try await readiness.respond() }
        routes.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml))
            )
        }
        return routes
    }

    /// `GET /metrics`, in Prometheus's text format.
    static func metrics(_ metrics: ServerMetrics) -> RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(
                status: .ok,
                headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition()))
            )
        }
        return routes
    }
}
