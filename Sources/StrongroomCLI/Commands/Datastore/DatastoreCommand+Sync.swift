// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomDatastore
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

                --purge ID removes a document on every replica, as if it had never been written: here at once, on \
                the server, and on each other device at its next sync (an edit made there before it heard of the \
                purge survives). --compact N then asks the server to forget this client's revisions of each \
                document that lie N or more generations below its newest (CouchDB's revs_limit); every device \
                still merges as before.
                """
        )
        @OptionGroup var store: SyncedDatastoreOptions
        @Flag(help: "Only send local changes.") var push = false
        @Flag(help: "Only receive the server's.") var pull = false
        @Option(help: ArgumentHelp("Purge this document on every replica first (repeatable).", valueName: "id"))
        var purge: [String] = []
        @Option(help: ArgumentHelp("Then let the server forget revisions this many generations old.", valueName: "n"))
        var compact: Int?
        @Option(
            help: ArgumentHelp(
                "Replicate a datastore another client shares with this one (what `store share` printed; remembered).",
                valueName: "owner/type"
            )
        )
        var shared: String?
        @Flag(help: "When the owner has revoked this client, keep the local copy instead of purging it.")
        var keepCopy = false
        @Flag(
            help: "First drop the local revisions the server does not hold (a read-only member's refused edits)."
        )
        var discardLocal = false
        @Flag(
            help: """
                Move the datastore to this profile's client and server on purpose. A datastore remembers the client \
                and server it first synced with and refuses any other (a forgotten --profile would push it into \
                another account).
                """
        )
        var rehome = false
        @OptionGroup var channel: ChannelOptions
        @Option(
            help: ArgumentHelp(
                "Push only documents this Cloudant Query selector matches and apply only matching revisions (JSON).",
                valueName: "json"
            )
        )
        var filter: String?
        @Flag(
            help: """
                Keep syncing until interrupted: again whenever this datastore changes or the server has new \
                revisions, riding out a server that goes away (a line per pass that moved something; with --json, \
                one JSON object per line).
                """
        )
        var watch = false
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            guard !(push && pull) else {
                throw CLIError(description: "error: give --push or --pull, not both", exitCode: .validationFailure)
            }
            guard !(watch && compact != nil) else {
                throw CLIError(
                    description: "error: --compact runs after a sync ends; --watch never ends: give one of them",
                    exitCode: .validationFailure
                )
            }
            if let compact, !(1...1_000_000).contains(compact) {
                throw CLIError(
                    description: "error: --compact keeps 1 to 1000000 generations",
                    exitCode: .validationFailure
                )
            }
            let client = try await store.client()
            let direction: ReplicationDirection = push ? .push : pull ? .pull : .both
            let given = try shared.map { text throws -> SharedDatastore in
                guard let address = SharedDatastore(text) else {
                    throw CLIError(
                        description: "error: --shared takes owner-id/type, as `store share` printed it",
                        exitCode: .validationFailure
                    )
                }
                return address
            }
            let (channel, filter) = (try channel.parsed(), try filter.map(ChannelOptions.filter))
            let (discarded, purged, report, compacted) = try await store.withDatastore { datastore in
                let replicator = try await Self.replicator(
                    datastore,
                    name: store.name,
                    client: client,
                    shared: given,
                    keepCopy: keepCopy,
                    channel: channel,
                    filter: filter
                )
                if rehome { try await replicator.rehome() }
                let discarded = discardLocal ? try await replicator.discardUnpushedRevisions() : 0
                let purged = purge.isEmpty ? 0 : try await replicator.purge(purge)
                if watch {
                    try await replicator.replicateContinuously(direction) { event in
                        switch event {
                        case .completed(let report)
                        where report.revisionsPushed + report.revisionsApplied + report.revisionsPurged > 0:
                            if json {
                                // JSON Lines: one object per pass, so a reader can take each as it comes.
                                let encoder = JSONEncoder()
                                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                                if let line = try? encoder.encode(SyncReportOutput(report)) {
                                    print(String(decoding: line, as: UTF8.self))
                                }
                            } else {
                                print(Self.summary(report))
                            }
                            fflush(nil)  // every stream: a watcher reads each line as it comes
                        case .offline(let reason, let retryIn):
                            FileHandle.standardError.write(
                                Data("the server is away (\(reason)); trying again in \(retryIn)\n".utf8)
                            )
                        default: break
                        }
                    }
                }
                let report = try await replicator.replicate(direction)
                var compacted: Int?
                if let compact { compacted = try await replicator.compact(revsLimit: compact) }
                return (discarded, purged, report, compacted)
            }
            // Healed (pushed again), but said loudly: exit 3 after the report.
            let lost = CLIError(
                description: "error: the server had acknowledged \(report.revisionsLostByServer) revisions of this "
                    + "datastore and no longer held them: they were pushed again; a server that keeps dropping writes "
                    + "is faulty or hostile",
                exitCode: .init(3)
            )
            if json {
                try printJSON(
                    SyncReportOutput(
                        report,
                        purged: purged,
                        compacted: compacted,
                        discarded: discardLocal ? discarded : nil
                    )
                )
                if report.revisionsLostByServer > 0 { throw lost }
                return
            }
            if discardLocal { print("discarded \(discarded) local revisions the server does not hold") }
            if !purge.isEmpty {
                print("purged \(purged) revisions here; the other devices follow on their next sync")
            }
            if report.restartedFromZero {
                print(
                    "the server had lost this datastore's checkpoint (restored from an older backup?): started over"
                )
            }
            print(Self.summary(report))
            if let compacted { print("the server forgot \(compacted) old revisions") }
            if report.revisionsLostByServer > 0 { throw lost }
        }
    }
}

extension DatastoreCommand.Sync {
    /// One pass in words.
    static func summary(_ report: ReplicationReport) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        var parts: [String] = []
        if report.revisionsPushed > 0 { parts.append("pushed \(count(report.revisionsPushed, "revision"))") }
        if report.revisionsPulled > 0 {
            let known = report.revisionsPulled - report.revisionsApplied
            parts.append(
                "pulled \(count(report.revisionsApplied, "new revision"))"
                    + (known > 0 ? " (\(known) already here)" : "")
            )
        }
        if report.conflictsCreated > 0 {
            parts.append("\(count(report.conflictsCreated, "document")) conflicted now (`store conflicts` lists them)")
        }
        if report.revisionsPurged > 0 {
            parts.append("removed \(count(report.revisionsPurged, "revision")) purged on another device")
        }
        if report.revisionsRefused > 0 {
            parts.append("refused \(count(report.revisionsRefused, "revision")) from clients without write access")
        }
        if report.revisionsLostByServer > 0 {
            parts.append(
                "the server had dropped \(count(report.revisionsLostByServer, "revision")) it acknowledged (pushed again)"
            )
        }
        return parts.isEmpty ? "up to date: nothing to push or pull" : parts.joined(separator: "; ")
    }

    /// The note in the datastore of the shared datastore it replicates.
    static let sharedNote = "cli.shared-datastore"

    /// The owner's replicator, or a member's when `shared` is given or was given before (then remembered).
    static func replicator(
        _ datastore: Datastore,
        name: String,
        client: Client,
        shared given: SharedDatastore?,
        keepCopy: Bool,
        channel: ReplicationChannel? = nil,
        filter: SelectorFilter? = nil
    ) async throws -> Replicator {
        if let given { try await datastore.setCheckpoint(sharedNote, given.description) }
        let remembered = try await datastore.checkpoint(sharedNote).flatMap { SharedDatastore($0) }
        guard let shared = given ?? remembered else {
            return Replicator(datastore: datastore, name: name, client: client, channel: channel, filter: filter)
        }
        return Replicator(
            datastore: datastore,
            sharedDatastore: shared,
            client: client,
            keepsCopyOnAccessLoss: keepCopy,
            filter: filter
        )
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
    /// Revisions removed here: by `--purge`, and by purges other devices made.
    var purged: Int
    /// Records the server deleted for `--compact` (absent without it).
    var compacted: Int?
    /// Local revisions `--discard-local` dropped (absent without it).
    var discarded: Int?
    /// Revisions the server had acknowledged in an earlier sync and no longer held (pushed again; exit 3).
    var lost: Int

    init(_ report: ReplicationReport, purged: Int = 0, compacted: Int? = nil, discarded: Int? = nil) {
        (pushed, pulled, applied) = (report.revisionsPushed, report.revisionsPulled, report.revisionsApplied)
        (conflicts, restarted) = (report.conflictsCreated, report.restartedFromZero)
        (self.purged, self.compacted, self.discarded) = (purged + report.revisionsPurged, compacted, discarded)
        lost = report.revisionsLostByServer
    }
}
