// Strongroom — SPDX-License-Identifier: Apache-2.0
import CoreMetrics
import Metrics
import Prometheus
import Synchronization

/// The server's metrics (swift-metrics over a Prometheus registry of this application's own, so that several servers
/// in one process never mix their figures), served at `GET /metrics` in the Prometheus text format.
///
/// Besides requests (count and latency per route, in flight) and file-body bytes in and out, it reports the
/// database's use: statements and sessions (transactions) running at the moment of the scrape, and statements run.
///
/// Labels are route templates (`/v1/storage/records/{id}`), methods and status codes: never a client ID, a record
/// ID or a query string, which would be unbounded and, for presigned URLs, a credential.
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let inFlight: CoreMetrics.Meter
    private let blobBytesIn: CoreMetrics.Counter
    private let blobBytesOut: CoreMetrics.Counter
    private let databaseUse: DatabaseUse?
    private let queriesInFlight: CoreMetrics.Gauge
    private let sessionsInFlight: CoreMetrics.Gauge
    private let queries: CoreMetrics.Counter
    /// The statement count last reported, so that the counter grows by what ran since.
    private let queriesReported = Mutex(0)

    /// - Parameter databaseUse: the store's statement and session counts, read at each scrape (nil: not a SQL store).
    init(databaseUse: DatabaseUse? = nil) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(5), .seconds(30),
        ]
        self.factory = factory
        inFlight = CoreMetrics.Meter(label: "strongroom_http_requests_in_flight", factory: factory)
        blobBytesIn = CoreMetrics.Counter(label: "strongroom_blob_bytes_in_total", factory: factory)
        blobBytesOut = CoreMetrics.Counter(label: "strongroom_blob_bytes_out_total", factory: factory)
        self.databaseUse = databaseUse
        queriesInFlight = CoreMetrics.Gauge(label: "strongroom_database_queries_in_flight", factory: factory)
        sessionsInFlight = CoreMetrics.Gauge(label: "strongroom_database_sessions_in_flight", factory: factory)
        queries = CoreMetrics.Counter(label: "strongroom_database_queries_total", factory: factory)
    }

    /// A request began.
    func started() { inFlight.increment() }

    /// A request ended with `status` after `duration`.
    func finished(method: String, route: String, status: Int, duration: Duration) {
        inFlight.decrement()
        CoreMetrics.Counter(
            label: "strongroom_http_requests_total",
            dimensions: [("method", method), ("route", route), ("status", String(status))],
            factory: factory
        ).increment()
        CoreMetrics.Timer(
            label: "strongroom_http_request_duration_seconds",
            dimensions: [("method", method), ("route", route)],
            factory: factory
        ).record(duration: duration)
    }

    /// File-body bytes stored.
    func received(blobBytes count: Int64) { blobBytesIn.increment(by: count) }

    /// File-body bytes served.
    func sent(blobBytes count: Int64) { blobBytesOut.increment(by: count) }

    /// Everything recorded, in the Prometheus text exposition format, with the database's use read now.
    func exposition() -> [UInt8] {
        if let reading = databaseUse?.reading {
            queriesInFlight.record(reading.queriesInFlight)
            sessionsInFlight.record(reading.sessionsInFlight)
            let delta = queriesReported.withLock { reported in
                defer { reported = max(reported, reading.queries) }
                return max(0, reading.queries - reported)
            }
            queries.increment(by: delta)
        }
        return registry.emitToBuffer()
    }
}
