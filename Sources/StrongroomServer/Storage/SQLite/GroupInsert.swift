// Strongroom — SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Group commit for record inserts on the one SQLite connection: while one insert runs, the inserts that arrive
/// wait, and the first of them then writes all the waiting rows as one statement — one transaction, one trip to
/// sqlite-nio's thread, one WAL append for the pages they share — instead of one each.
///
/// Nothing is acknowledged early: every caller returns only after the statement holding its row has committed,
/// so durability is that of a single insert. An idle server adds no wait (the first insert runs at once). A batch
/// that fails as a whole (one bad row fails the statement) is retried row by row, so each caller gets its own
/// outcome. A batch holds at most ``maximumRows`` rows and, past the first row, at most ``maximumBytes`` bytes of
/// row text, which bounds one transaction's size and the time a writer holds the connection.
///
/// ``paused(_:)`` takes a turn without a row: inserts wait in the queue (not in SQLite's busy handler) while the
/// checkpointer restarts the log.
final class GroupInsert: Sendable {
    /// Runs one row (`insertOne`) or several in one statement (`insertMany`, answering each row's index in order).
    struct Writer: Sendable {
        var insertOne: @Sendable (RecordRow) async throws -> Int64
        var insertMany: @Sendable ([RecordRow]) async throws -> [Int64]
    }

    /// Rows per statement; SQLite's default bound on parameters (32 766) allows 2 730 rows of 12 columns.
    static let maximumRows = 64
    /// Bytes of row text per statement beyond its first row (a single large row still goes alone).
    static let maximumBytes = 4 << 20

    private enum Turn {
        case lead
        case inserted(Int64)
    }

    /// A caller waiting for its turn: an insert, or a pause when `row` is nil.
    private struct Waiter {
        let row: RecordRow?
        let continuation: CheckedContinuation<Turn, any Error>
    }

    private struct State {
        var running = false
        var waiting: [Waiter] = []  // at most one per request in flight, and the checkpointer
    }

    private let writer: Writer
    private let state = Mutex(State())

    init(writer: Writer) {
        self.writer = writer
    }

    /// How many callers wait for their turn.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Inserts `row` (its `index` ignored), with whatever rows are waiting when its turn comes; returns its index.
    func insert(_ row: RecordRow) async throws -> Int64 {
        switch try await turn(for: row) {
        case .inserted(let index): return index
        case .lead: return try await lead(with: row)
        }
    }

    /// Runs `body` while no insert runs: it starts once the running statement has finished, and inserts arriving
    /// meanwhile wait for it.
    func paused<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        _ = try await turn(for: nil)
        defer { handOff() }
        return try await body()
    }

    /// Returns `.lead` at once when nothing runs; otherwise waits to be handed the turn or to have its row written.
    private func turn(for row: RecordRow?) async throws -> Turn {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Turn, any Error>) in
            let leads = state.withLock { state in
                guard state.running else {
                    state.running = true
                    return true
                }
                state.waiting.append(Waiter(row: row, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
    }

    /// Writes `row` and the rows waiting, answers their callers, and hands the connection to the next waiter.
    private func lead(with row: RecordRow) async throws -> Int64 {
        let others = takeWaitingRows()
        let outcome: Result<Int64, any Error>
        if others.isEmpty {
            outcome = await Result(catching: { try await writer.insertOne(row) })
        } else {
            let outcomes = await write([row] + others.map(\.row))
            for (waiter, result) in zip(others, outcomes.dropFirst()) {
                switch result {
                case .success(let index): waiter.continuation.resume(returning: .inserted(index))
                case .failure(let error): waiter.continuation.resume(throwing: error)
                }
            }
            outcome = outcomes[0]
        }
        handOff()
        return try outcome.get()
    }

    /// One statement for all of `rows`; if it fails, each row alone, so that each caller gets its own outcome.
    private func write(_ rows: [RecordRow]) async -> [Result<Int64, any Error>] {
        // A batch that fails is retried row by row below, so each caller gets its own outcome.
        if let indexes = try? await writer.insertMany(rows), indexes.count == rows.count {
            return indexes.map { .success($0) }
        }
        var outcomes: [Result<Int64, any Error>] = []
        outcomes.reserveCapacity(rows.count)
        for row in rows { outcomes.append(await Result(catching: { try await writer.insertOne(row) })) }
        return outcomes
    }

    /// The inserts at the head of the queue that fit in one statement beside the leader's row, taken off it (a
    /// pause waiting there keeps its place and goes next).
    private func takeWaitingRows() -> [(row: RecordRow, continuation: CheckedContinuation<Turn, any Error>)] {
        state.withLock { state in
            var taken: [(row: RecordRow, continuation: CheckedContinuation<Turn, any Error>)] = []
            var bytes = 0
            for waiter in state.waiting {
                guard let row = waiter.row, taken.count < Self.maximumRows - 1 else { break }
                bytes += row.textSize
                if bytes > Self.maximumBytes && !taken.isEmpty { break }
                taken.append((row, waiter.continuation))
            }
            state.waiting.removeFirst(taken.count)
            return taken
        }
    }

    /// Wakes the next waiter to lead, or marks the connection free when nobody waits.
    private func handOff() {
        let next: Waiter? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
