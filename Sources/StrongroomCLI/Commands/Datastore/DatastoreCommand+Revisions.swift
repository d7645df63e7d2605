// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomDatastore
import StrongroomWire

extension DatastoreCommand {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Delete a document: tombstone its current revision, or with --all-leaves every conflicting branch."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "The current revision (required unless --all-leaves).") var rev: String?
        @Flag(help: "Tombstone every live leaf.") var allLeaves = false

        func run() async throws {
            try await store.run { datastore in
                if allLeaves {
                    for tombstone in try await datastore.deleteDocument(id: id) {
                        print("\(tombstone.docID) \(tombstone.revID)")
                    }
                } else {
                    guard let rev else {
                        throw CLIError(
                            description: "error: give --rev or --all-leaves",
                            exitCode: .validationFailure
                        )
                    }
                    let tombstone = try await datastore.delete(from: try await datastore.document(id: id, rev: rev))
                    print("\(tombstone.docID) \(tombstone.revID)")
                }
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a revision's history to the root, newest first (\"compacted\" where the body is gone)."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "A revision (the winning one when absent).") var rev: String?

        func run() async throws {
            try await store.run { datastore in
                let revision = try await datastore.document(id: id, rev: rev)
                for entry in try await datastore.revisionHistory(of: revision) {
                    let notes = (entry.isDeleted ? " deleted" : "") + (entry.isCompacted ? " compacted" : "")
                    print("\(entry.revID)\(notes)")
                }
            }
        }
    }

    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List conflicted documents: ID, then each live leaf revision."
        )
        @OptionGroup var store: DatastoreOptions
        @Flag(help: "Print one JSON array of {\"id\", \"revs\"} ([] when there are none).") var json = false

        struct Output: Encodable {
            var id: String
            var revs: [String]
        }

        func run() async throws {
            try await store.run { datastore in
                var conflicts: [Output] = []
                for id in try await datastore.conflictedDocumentIDs() {
                    let leaves = try await datastore.leaves(docID: id).filter { !$0.isDeleted }.map(\.revID)
                    conflicts.append(Output(id: id, revs: leaves))
                }
                if json { return try printJSON(conflicts) }
                for conflict in conflicts { print(([conflict.id] + conflict.revs).joined(separator: " ")) }
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve a conflicted document by keeping one leaf revision; the others are deleted."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "The leaf revision to keep.") var keep: String

        func run() async throws {
            try await store.run { datastore in
                let keep = keep
                let winner = try await datastore.resolveConflicts(docID: id) { leaves in
                    leaves.first { $0.revID == keep }
                }
                guard let winner else {
                    throw CLIError(
                        description: "error: not conflicted, or \(keep) is not one of its live leaves",
                        exitCode: .init(9)
                    )
                }
                print("\(winner.docID) \(winner.revID)")
            }
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find documents with a Cloudant Query selector (JSON); prints ID and revision, or --json bodies."
        )
        @OptionGroup var store: DatastoreOptions
        @Argument(help: "The selector, such as '{\"age\": {\"$gt\": 12}}'.") var selector: String
        @Option(help: "Sort by this field (repeatable; --sort=-field for descending).") var sort: [String] = []
        @Option(help: "Skip this many matches.") var skip = 0
        @Option(help: "At most this many.") var limit = 1000
        @Flag(help: "Print the documents as one JSON array (each with _id and _rev; [] for none).") var json = false
        @Flag(help: "Print how the query is answered (the indexes used, or scan) instead of running it.")
        var explain = false

        func run() async throws {
            let parsed = try DatastoreCommand.object(from: Data(selector.utf8))
            let sort = sort.map {
                $0.hasPrefix("-") ? SortField(String($0.dropFirst()), descending: true) : SortField($0)
            }
            try await store.withDatastore { datastore in
                if explain {
                    print(try await datastore.explain(selector: parsed, sort: sort))
                    return
                }
                let found = try await datastore.find(selector: parsed, sort: sort, skip: skip, limit: limit)
                if json {
                    // One JSON array per invocation, `[]` for no match.
                    print("[" + (try found.map(DatastoreCommand.json).joined(separator: ",\n")) + "]")
                    return
                }
                for revision in found { print("\(revision.docID) \(revision.revID)") }
            }
        }
    }
}
