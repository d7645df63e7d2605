// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomSync

extension DatastoreCommand {
    /// `strongroom store sync`: replicate a datastore through the server, end to end encrypted.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replicate the datastore through the server (encrypted; the server sees no IDs or contents).",
            discussion: """
                Every device of a client that syncs a datastore of the same --name with the same profile converges \
                on the same documents; concurrent edits are kept as conflicts (`store conflicts`). Push sends the \
                revisions the server lacks, pull applies the ones the datastore lacks; both resume from their \
                checkpoints, kept inside the datastore.
                """
        )
        @OptionGroup var store: DatastoreOptions
        @Flag(help: "Only send local changes.") var push = false
        @Flag(help: "Only receive the server's.") var pull = false
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                guard !(push && pull) else {
                    throw CLIError(description: "error: give --push or --pull, not both", exitCode: .validationFailure)
                }
                let client = try await connection.client(keychain: store.keychain)
                let direction: ReplicationDirection = push ? .push : pull ? .pull : .both
                let report = try await store.withDatastore { datastore in
                    try await Replicator(datastore: datastore, name: store.name, client: client).replicate(direction)
                }
                if json { return try printJSON(SyncReportOutput(report)) }
                if report.restartedFromZero {
                    print(
                        "the server had lost this datastore's checkpoint (restored from an older backup?): started over"
                    )
                }
                print(
                    "pushed \(report.revisionsPushed) revisions; pulled \(report.revisionsPulled), "
                        + "\(report.revisionsApplied) new"
                        + (report.conflictsCreated == 0 ? "" : "; \(report.conflictsCreated) conflicted now")
                )
            }
        }
    }
}

/// A replication report as `store sync --json` prints it.
struct SyncReportOutput: Encodable {
    var pushed: Int
    var pulled: Int
    var applied: Int
    /// Documents that became conflicted.
    var conflicts: Int
    /// The server had lost this replica's checkpoint, so both directions started over.
    var restarted: Bool

    init(_ report: ReplicationReport) {
        (pushed, pulled, applied) = (report.revisionsPushed, report.revisionsPulled, report.revisionsApplied)
        (conflicts, restarted) = (report.conflictsCreated, report.restartedFromZero)
    }
}
