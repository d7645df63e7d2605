// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Live replication: a pass, then another whenever there is work, until cancelled.
extension Replicator {
    /// Replicates in `direction` until the task is cancelled (CouchDB's continuous replication): a pass at once, then
    /// another whenever the datastore changes through this process or the server has new records of the datastore
    /// (a bounded long-poll, `POST /v2/sync/changes`), reporting ``ReplicationEvent/idle(_:)`` between passes. When
    /// the server cannot be reached it reports ``ReplicationEvent/offline(reason:retryIn:)`` and tries again, backing
    /// off with jitter; any other failure ends it.
    ///
    /// - Throws: `CancellationError` when cancelled (every page already applied stays, with its checkpoint); the
    ///   first error that is not the server being away.
    public func replicateContinuously(
        _ direction: ReplicationDirection = .both,
        progress: @Sendable (ReplicationEvent) -> Void = { _ in }
    ) async throws {
        var backoff = Self.firstRetry
        while true {
            try Task.checkCancellation()
            let seen = datastore.changeGeneration
            let outcome: Result<ReplicationReport, any Error>
            do {
                outcome = .success(try await replicate(direction, progress: progress))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let report):
                backoff = Self.firstRetry
                progress(.idle(report))
                await waitForWork(direction, seenLocally: seen)
            case .failure where Task.isCancelled:
                throw CancellationError()
            case .failure(let error) where Self.isServerAway(error):
                let delay = backoff * Double.random(in: 0.5...1.0)
                progress(.offline(reason: String(describing: error), retryIn: delay))
                try await Task.sleep(for: delay)
                backoff = min(backoff * 2, Self.longestRetry)
            case .failure(let error):
                throw error
            }
        }
    }

    static let firstRetry: Duration = .milliseconds(500)
    static let longestRetry: Duration = .seconds(30)
    /// How long one long-poll asks the server to wait.
    static let longPoll: Duration = .seconds(25)
    /// How often a live replicator looks for writes other processes made to the datastore.
    static let localPoll: Duration = .seconds(1)

    /// Whether `error` is the server being away (unreachable, timed out, or answering with its own failure).
    static func isServerAway(_ error: any Error) -> Bool {
        guard let error = error as? ClientError else { return false }
        return [.transport, .timedOut, .server].contains(error.code)
    }

    /// Returns when there is work: a local write through this process (unless only pulling) or a record on the
    /// server after the pull checkpoint (unless only pushing); also when the long-poll fails, so that the next pass
    /// reports why.
    private func waitForWork(_ direction: ReplicationDirection, seenLocally seen: UInt64) async {
        let (datastore, client) = (datastore, client)
        let names = try? self.names()
        await withTaskGroup(of: Void.self) { group in
            if direction != .push, let names {
                group.addTask {
                    while !Task.isCancelled {
                        let saved: String??
                        do { saved = .some(try await datastore.checkpoint(names.pullKey)) } catch { saved = .none }
                        guard let saved else { return }
                        let after = saved.flatMap { Int64($0) } ?? 0
                        guard
                            let index = try? await client.waitForRecords(
                                type: names.type,
                                afterIndex: after,
                                wait: Self.longPoll
                            )
                        else {
                            // Refused (429: this client holds too many) or away: never a tight loop.
                            try? await Task.sleep(for: Self.firstRetry)
                            return
                        }
                        if index > after { return }
                    }
                }
            }
            if direction != .pull, let names {
                group.addTask {
                    // At once for writes through this process; within a second for writes by other processes (the
                    // changes feed has moved past the push checkpoint).
                    while !Task.isCancelled, datastore.changeGeneration == seen {
                        await datastore.waitForChange(after: seen, timeout: Self.localPoll)
                        let pushed =
                            (try? await datastore.checkpoint(names.pushKey)).flatMap { $0.flatMap { Int64($0) } } ?? 0
                        if let page = try? await datastore.changes(since: pushed, limit: 1), !page.changes.isEmpty {
                            return
                        }
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
