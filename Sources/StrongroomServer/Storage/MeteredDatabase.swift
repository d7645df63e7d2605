// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import SQLKit
import Synchronization

/// How much of the database the server is using right now, and has used: what `GET /metrics` reports as pool use.
/// A query holds a connection while it runs, a session (a transaction) for as long as it lasts.
package final class DatabaseUse: Sendable {
    /// A moment's reading.
    struct Reading: Equatable {
        /// Statements running now (outside sessions, and inside them).
        var queriesInFlight: Int
        /// Sessions (transactions) holding a connection now.
        var sessionsInFlight: Int
        /// Statements run since start-up.
        var queries: Int
    }

    private let queriesInFlight = Atomic<Int>(0)
    private let sessionsInFlight = Atomic<Int>(0)
    private let queries = Atomic<Int>(0)

    func queryStarted() {
        queriesInFlight.add(1, ordering: .relaxed)
        queries.add(1, ordering: .relaxed)
    }

    func queryFinished() { queriesInFlight.subtract(1, ordering: .relaxed) }

    /// Runs `statement` counted as one query, in flight until it returns or throws.
    func query<R>(_ statement: () async throws -> R) async rethrows -> R {
        queryStarted()
        defer { queryFinished() }
        return try await statement()
    }

    func sessionStarted() { sessionsInFlight.add(1, ordering: .relaxed) }

    func sessionFinished() { sessionsInFlight.subtract(1, ordering: .relaxed) }

    var reading: Reading {
        Reading(
            queriesInFlight: queriesInFlight.load(ordering: .relaxed),
            sessionsInFlight: sessionsInFlight.load(ordering: .relaxed),
            queries: queries.load(ordering: .relaxed)
        )
    }
}

/// An `SQLDatabase` that counts its statements and sessions in a ``DatabaseUse`` and otherwise forwards everything;
/// with a ``ConnectionGate`` (SQLite's one serving connection), each statement, and each session as a whole, takes
/// its turn (statements inside a session go straight to the connection).
struct MeteredDatabase: SQLDatabase {
    let base: any SQLDatabase
    let use: DatabaseUse
    var gate: ConnectionGate? = nil

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(
        sql query: any SQLExpression,
        _ onRow: @escaping @Sendable (any SQLRow) -> Void
    )
        -> EventLoopFuture<Void>
    {
        guard gate == nil else {
            let promise = base.eventLoop.makePromise(of: Void.self)
            promise.completeWithTask { try await execute(sql: query, onRow) }
            return promise.futureResult
        }
        use.queryStarted()
        let use = self.use
        return base.execute(sql: query, onRow).always { _ in use.queryFinished() }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await inTurn { try await use.query { try await base.execute(sql: query, onRow) } }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let use = self.use
        return try await inTurn {
            try await base.withSession { session in
                use.sessionStarted()
                defer { use.sessionFinished() }
                return try await closure(MeteredDatabase(base: session, use: use))
            }
        }
    }

    /// Runs `body` holding the gate, when there is one.
    private func inTurn<R>(_ body: () async throws -> R) async throws -> R {
        guard let gate else { return try await body() }
        return try await gate.run(body)
    }
}
