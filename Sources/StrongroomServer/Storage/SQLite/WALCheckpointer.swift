// Strongroom — SPDX-License-Identifier: Apache-2.0
import Logging
import SQLiteKit

/// Moves the embedded database's write-ahead log into the database file from a connection of its own, so that
/// requests do not wait for it.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the connection every request
/// shares: while it copies pages and syncs the file, every read and write waits (a tenth of a POST's time, and its
/// p99). Here a second connection runs a `PASSIVE` checkpoint, which blocks nobody, shortly after a commit. A
/// passive checkpoint cannot restart the log while writes keep coming, so once the log holds ``restartFrames``
/// frames, the checkpointer catches up with a few more passive passes and then, with inserts held in
/// ``GroupInsert``'s queue, runs a `RESTART` checkpoint over the little that is left; the next commit then writes
/// the log from its start again. The serving connection keeps SQLite's automatic checkpoint at a higher threshold
/// (``EmbeddedDatabase/fallbackCheckpointPages``), which bounds the log when this one is not running (a store opened
/// without its service) or cannot keep up. Durability is unchanged: a write is durable once its commit is in the log.
struct WALCheckpointer: Sendable {
    let connection: SQLiteConnection
    let inserts: GroupInsert
    let logger: Logger
    /// Log frames (pages) from which the log is restarted: 32 MiB with SQLite's 4 KiB pages.
    var restartFrames = 8192
    /// How long a commit waits for a checkpoint at most.
    static let interval = Duration.milliseconds(100)
    /// Passive passes at most before a restart, and the frames a pass may leave behind to end them early.
    static let catchUpPasses = 4
    static let catchUpFrames = 128

    /// How a checkpoint treats the connections using the log.
    enum Mode: String {
        /// Copies what it can without waiting for anyone.
        case passive = "PASSIVE"
        /// Waits for the writer and the readers, copies everything and makes the next commit start the log afresh.
        case restart = "RESTART"
    }

    /// What one checkpoint saw: frames in the log and how many of them are now in the database file.
    struct Progress: Sendable, Equatable {
        var logFrames: Int
        var checkpointedFrames: Int
    }

    /// Checkpoints whenever the serving connection committed since the last look, until the task is cancelled.
    func run() async {
        var checked: Int64?
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.interval) } catch { return }
            do {
                let version = try await dataVersion()
                guard version != checked else { continue }
                checked = version
                _ = try await checkpointAndRestart()
            } catch {
                // Shutting down: the connection's work was cancelled, nothing failed.
                if error is CancellationError || Task.isCancelled { return }
                logger.warning(
                    "WAL checkpoint failed; SQLite's own checkpoint still bounds the log",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }

    /// A passive checkpoint, and a restart of the log once it is long (see the type's documentation).
    func checkpointAndRestart() async throws -> Progress {
        var progress = try await checkpoint(.passive)
        var passes = 0
        while progress.logFrames >= restartFrames, passes < Self.catchUpPasses {
            let next = try await checkpoint(.passive)
            passes += 1
            defer { progress = next }
            if next.logFrames - progress.logFrames <= Self.catchUpFrames { break }
        }
        guard progress.logFrames >= restartFrames else { return progress }
        return try await inserts.paused { try await checkpoint(.restart) }
    }

    /// One checkpoint in `mode`.
    func checkpoint(_ mode: Mode) async throws -> Progress {
        guard let row = try await connection.query("PRAGMA wal_checkpoint(\(mode.rawValue))").first,
            case .integer(let frames) = row.column("log"), case .integer(let done) = row.column("checkpointed")
        else { throw RecordTableError(column: "wal_checkpoint", problem: "no log and checkpointed counts") }
        return Progress(logFrames: Int(frames), checkpointedFrames: Int(done))
    }

    /// A number that changes whenever another connection commits (SQLite's `data_version`).
    private func dataVersion() async throws -> Int64 {
        guard let row = try await connection.query("PRAGMA data_version").first,
            case .integer(let version) = row.column("data_version")
        else { throw RecordTableError(column: "data_version", problem: "no data version") }
        return Int64(version)
    }
}
