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
    private let longPollExamined: CoreMetrics.Counter
    private let longPollsWaiting: CoreMetrics.Meter
    private let announcementsReceived: CoreMetrics.Counter
    private let announcementsUnknown: CoreMetrics.Counter
    private let blobBytesOut: CoreMetrics.Counter
    private let databaseUse: DatabaseUse?
    private let queriesInFlight: CoreMetrics.Gauge
    private let sessionsInFlight: CoreMetrics.Gauge
    private let queries: CoreMetrics.Counter
    /// The statement count last reported, so that the counter grows by what ran since.
    private let queriesReported = Mutex(0)
    /// Each route's counter and timer, made once: making them asks the registry under its lock every time.
    private let routeMetrics = Mutex<[RouteKey: RouteMetrics]>([:])

    private struct RouteKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct RouteMetrics: Sendable {
        var requests: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
    }

    /// The methods reported by name; any other the HTTP parser accepts (WebDAV's, `PURGE`, …) is `OTHER`, so
    /// clients cannot multiply the label sets.
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

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
        longPollExamined = CoreMetrics.Counter(label: "strongroom_sync_changes_examined_total", factory: factory)
        blobBytesOut = CoreMetrics.Counter(label: "strongroom_blob_bytes_out_total", factory: factory)
        longPollsWaiting = CoreMetrics.Meter(label: "strongroom_sync_changes_waiting", factory: factory)
        announcementsReceived = CoreMetrics.Counter(
            label: "strongroom_sync_announcements_received_total",
            factory: factory
        )
        announcementsUnknown = CoreMetrics.Counter(
            label: "strongroom_sync_announcements_unknown_total",
            factory: factory
        )
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
        let key = RouteKey(method: Self.methods.contains(method) ? method : "OTHER", route: route, status: status)
        let metrics = routeMetrics.withLock { known in
            if let metrics = known[key] { return metrics }
            let made = RouteMetrics(
                requests: CoreMetrics.Counter(
                    label: "strongroom_http_requests_total",
                    dimensions: [("method", key.method), ("route", route), ("status", String(status))],
                    factory: factory
                ),
                duration: CoreMetrics.Timer(
                    label: "strongroom_http_request_duration_seconds",
                    dimensions: [("method", key.method), ("route", route)],
                    factory: factory
                )
            )
            // Routes are templates and statuses three digits, so this stays small; the bound is a backstop.
            if known.count < 4096 { known[key] = made }
            return made
        }
        metrics.requests.increment()
        metrics.duration.record(duration: duration)
    }

    /// File-body bytes stored.
    func received(blobBytes count: Int64) { blobBytesIn.increment(by: count) }
    /// Records the long-polls (`/v2/sync/changes`) examined: what their cost is bounded by.
    func examinedByLongPolls(_ count: Int) { longPollExamined.increment(by: count) }
    /// A long-poll was admitted.
    func longPollStarted() { longPollsWaiting.increment() }
    /// An admitted long-poll answered.
    func longPollEnded() { longPollsWaiting.decrement() }
    /// Another instance's announcement of the types it wrote arrived (``WriteAnnouncer``).
    func receivedAnnouncement() { announcementsReceived.increment() }
    /// "Anything may have changed" arrived: the announcement channel (re)connected, or another instance could not
    /// name its writes.
    func receivedUnknownAnnouncement() { announcementsUnknown.increment() }

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
