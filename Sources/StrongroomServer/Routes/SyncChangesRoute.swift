// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import ServiceLifecycle
import StrongroomCore
import StrongroomWire
import Synchronization

/// `POST /v2/sync/changes`: live replication's long-poll. Answers as soon as a record of the type readable by the
/// caller lies after `after_index` (a replica's checkpoint record does not count: every replication rewrites one),
/// or after the wait, capped by ``ServerLimits/maximumSyncWait``. A write of the type through this instance wakes its
/// waiters at once (and no others); so does one through another instance sharing the database, whose announcement
/// (``WriteAnnouncer``) arrives here; without an announcer, other processes' writes are seen within a second.
///
/// What one long-poll costs is bounded by what it may read, not by what the type holds: a caller that may read
/// nothing of the type (it writes none and no one shared it) is answered without its records being looked at; and
/// each look examines at most ``window`` records after the last one examined, so a record is examined once per
/// long-poll, however often it wakes. Each client may hold ``ServerLimits/syncWaitsPerClient`` long-polls at once and
/// the server ``ServerLimits/syncWaitsTotal`` (more is 429), so waiting requests never take the connection slots
/// that `/health`, tokens and ordinary requests need.
struct SyncChangesRoute {
    /// The most records one look examines.
    static let window = 1_000

    let changes: TypeChanges
    /// The looks at the database, shared between callers waiting on one type from one index.
    let looks: SharedLooks
    /// How long a long-poll waits for a signal before it looks at the database anyway.
    let lookInterval: Duration
    let metrics: ServerMetrics
    let waits: WaitingClients
    let limits: ServerLimits
    /// ``ServerLimits/syncWaitsTotal``, resolved against the connection cap.
    let waitsTotal: Int

    /// Its path, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.syncChanges), use: changes)
        return routes
    }

    func changes(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SyncChangesRequest.self, request, context)
        let type = try requireType(body.type, limits)
        guard body.afterIndex >= 0 else { throw ServerError.badRequest("after_index must not be negative") }
        guard (0...3600).contains(body.wait) else { throw ServerError.badRequest("wait is 0 to 3600 seconds") }
        let wait = min(Duration.seconds(body.wait), limits.maximumSyncWait)
        switch waits.enter(caller, limit: limits.syncWaitsPerClient, total: waitsTotal) {
        case .entered: break
        case .clientFull:
            throw ServerError(.rateLimited, "at most \(limits.syncWaitsPerClient) waiting requests per client")
        case .serverFull:
            throw ServerError(.rateLimited, "the server holds as many waiting requests as it takes: try again shortly")
        }
        metrics.longPollStarted()
        defer {
            waits.leave(caller)
            metrics.longPollEnded()
        }
        let deadline = ContinuousClock.now + wait
        let changes = changes
        // Registered before the first look, so a write committed during a look wakes the next wait at once.
        let ticket = changes.register(type)
        defer { changes.unregister(ticket) }
        var cursor = body.afterIndex
        // A server shutting down answers its waiting long-polls at once instead of draining them for the whole wait.
        let index = try await withGracefulShutdownHandler {
            while true {
                if let index = try await firstChange(type: type, cursor: &cursor, caller: caller) { return index }
                let now = ContinuousClock.now
                guard now < deadline, !Task.isCancelled, !Task.isShuttingDownGracefully else { return body.afterIndex }
                await changes.wait(ticket, timeout: min(deadline - now, lookInterval))
            }
        } onGracefulShutdown: {
            changes.signalAll()
        }
        return try json(SyncChangesResponse(lastIndex: index))
    }

    /// The index of the first record after `cursor` readable by `caller` that is not a checkpoint record, examining
    /// at most ``window`` records per step and moving `cursor` past the ones examined; nil when there is none yet.
    /// A caller that may read nothing of the type is answered after two index lookups. Looks of callers waiting on
    /// the same type from the same index are one look (``SharedLooks``): a write that wakes a thousand subscribers
    /// costs four statements, not three thousand.
    private func firstChange(type: String, cursor: inout Int64, caller: String) async throws -> Int64? {
        while true {
            let look = try await looks.look(type: type, after: cursor, caller: caller)
            if let hit = look.hit { return hit }
            guard let last = look.last else { return nil }
            cursor = last
            // More to examine than one window: yield between windows, so one catch-up does not hold a thread; a
            // caller that went away ends the look (the route answers as at the end of the wait).
            await Task.yield()
            if Task.isCancelled { return nil }
        }
    }
}

/// How many long-polls each client, and the server, hold open.
final class WaitingClients: Sendable {
    /// Whether a long-poll was admitted.
    enum Entry: Equatable {
        case entered
        /// The client holds its share already.
        case clientFull
        /// The server holds as many as it admits.
        case serverFull
    }

    private struct Counts {
        var perClient: [String: Int] = [:]
        var total = 0
    }

    private let counts = Mutex(Counts())

    /// Counts one more for `client` unless it already holds `limit` or the server `total`.
    func enter(_ client: String, limit: Int, total: Int) -> Entry {
        counts.withLock { counts in
            guard counts.perClient[client, default: 0] < limit else { return .clientFull }
            guard counts.total < total else { return .serverFull }
            counts.perClient[client, default: 0] += 1
            counts.total += 1
            return .entered
        }
    }

    func leave(_ client: String) {
        counts.withLock { counts in
            guard let held = counts.perClient[client] else { return }
            counts.perClient[client] = held > 1 ? held - 1 : nil
            counts.total -= 1
        }
    }
}

/// Wakes the long-polls waiting on each type a successful request wrote through this instance (the routes note the
/// types: ``StrongroomRequestContext/noteWrite(of:)``), and announces the types to the other instances.
struct WriteSignalMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let changes: TypeChanges
    let announcer: (any WriteAnnouncer)?

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        if request.method != .get, request.method != .head, response.status.code < 400 {
            let types = context.trace.writtenTypes.withLock { $0 }
            if !types.isEmpty {
                changes.signal(types)
                announcer?.announce(types)
            }
        }
        return response
    }
}
