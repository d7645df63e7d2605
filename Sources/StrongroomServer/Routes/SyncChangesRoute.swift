// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import ServiceLifecycle
import StrongroomCore
import StrongroomWire
import Synchronization

/// `POST /v2/sync/changes`: live replication's long-poll. Answers as soon as a record of the type readable by the
/// caller lies after `after_index` (a replica's checkpoint record does not count: every replication rewrites one),
/// or after the wait, capped by ``ServerLimits/maximumSyncWait``. A write through this instance wakes the waiters at
/// once; writes through other instances sharing the database are seen within a second. Each client may hold
/// ``ServerLimits/syncWaitsPerClient`` such requests at once (more is 429).
struct SyncChangesRoute {
    let store: any RecordStore
    let changes: ChangeNotifier
    let waits: WaitingClients
    let limits: ServerLimits

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
        guard waits.enter(caller, limit: limits.syncWaitsPerClient) else {
            throw ServerError(.rateLimited, "at most \(limits.syncWaitsPerClient) waiting requests per client")
        }
        defer { waits.leave(caller) }
        let deadline = ContinuousClock.now + wait
        let changes = changes
        // A server shutting down answers its waiting long-polls at once instead of draining them for the whole wait.
        let index = try await withGracefulShutdownHandler {
            while true {
                let seen = changes.generation
                if let index = try await firstChange(type: type, after: body.afterIndex, caller: caller) {
                    return index
                }
                let now = ContinuousClock.now
                guard now < deadline, !Task.isCancelled, !Task.isShuttingDownGracefully else { return body.afterIndex }
                await changes.wait(after: seen, timeout: min(deadline - now, .seconds(1)))
            }
        } onGracefulShutdown: {
            changes.signal()
        }
        return try json(SyncChangesResponse(lastIndex: index))
    }

    /// The index of the first record after `after` that is not a checkpoint record, looking at 1,000 at most.
    private func firstChange(type: String, after: Int64, caller: String) async throws -> Int64? {
        var query = RecordQuery(
            scope: .readableBy(caller),
            afterIndex: after,
            limit: 100,
            writerIDs: [],
            userIDs: [],
            recordIDs: [],
            types: [type],
            includesData: false
        )
        for _ in 0..<10 {
            let batch = try await store.records(matching: query)
            if let hit = batch.first(where: { $0.plain[ReplicatedType.PlainKey.checkpoint] == nil }) {
                return hit.index
            }
            guard batch.count == query.limit, let last = batch.last else { return nil }
            query.afterIndex = last.index
        }
        return nil
    }
}

/// How many long-polls each client holds open.
final class WaitingClients: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts one more for `client`; false (nothing counted) when it already holds `limit`.
    func enter(_ client: String, limit: Int) -> Bool {
        counts.withLock { counts in
            guard counts[client, default: 0] < limit else { return false }
            counts[client, default: 0] += 1
            return true
        }
    }

    func leave(_ client: String) {
        counts.withLock { counts in
            let left = counts[client, default: 1] - 1
            counts[client] = left > 0 ? left : nil
        }
    }
}

/// Wakes the long-polls after every successful write a client makes through this instance.
struct WriteSignalMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let changes: ChangeNotifier

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        if request.method != .get, request.method != .head, response.status.code < 400 { changes.signal() }
        return response
    }
}
