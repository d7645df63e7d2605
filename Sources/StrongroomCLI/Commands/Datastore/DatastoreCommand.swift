// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

/// `strongroom store …`: the encrypted local datastore from the command line.
struct DatastoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract:
            "Documents in an encrypted local datastore: documents, history, conflicts, queries, attachments, upkeep.",
        subcommands: [
            Create.self, Put.self, Get.self, Delete.self, History.self, Import.self, List.self, Find.self,
            IndexCommand.self, Changes.self, Conflicts.self, Resolve.self, Attach.self, AttachmentCommand.self,
            Check.self, Compact.self, Rekey.self, ChangePassword.self, Sync.self, Share.self, Unshare.self,
            Members.self,
        ]
    )

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a document, or update it with --rev, from a JSON object on standard input."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID (generated when absent).") var id: String?
        @Option(help: "The current revision, to update the document.") var rev: String?
        @Flag(help: "Create the datastore first when it does not exist (otherwise that is an error).")
        var create = false

        func run() async throws {
            let body = try DatastoreCommand.object(from: FileHandle.standardInput.readToEnd() ?? Data())
            try await store.withDatastore(mode: create ? .createIfMissing : .existing) { datastore in
                let written: DocumentRevision
                if let rev, let id {
                    written = try await datastore.update(
                        from: try await datastore.document(id: id, rev: rev),
                        body: body
                    )
                } else {
                    written = try await datastore.createDocument(id: id, body: body)
                }
                print("\(written.docID) \(written.revID)")
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a document as JSON, with _id and _rev.")
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "A revision (the winning one when absent).") var rev: String?

        func run() async throws {
            try await store.run { datastore in
                let revision = try await datastore.document(id: id, rev: rev)
                print(try DatastoreCommand.json(revision))
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create one document per JSON Lines object on standard input (its _id, if any, is the ID).",
            discussion: """
                Each line is committed durably before its "ID REV" line is printed, so everything printed survives \
                a crash or a kill. A bad line stops the import with its line number; earlier lines stay.
                """
        )
        @OptionGroup var store: DatastoreOptions
        @Flag(help: "Create the datastore first when it does not exist (otherwise that is an error).")
        var create = false

        func run() async throws {
            try await store.run(mode: create ? .createIfMissing : .existing) { datastore in
                var number = 0
                while let line = readLine(strippingNewline: true) {
                    number += 1
                    if line.allSatisfy(\.isWhitespace) { continue }
                    var body: [String: JSONValue]
                    do {
                        body = try DatastoreCommand.object(from: Data(line.utf8))
                    } catch let error as CLIError {
                        throw CLIError(
                            description: "\(error.description) (line \(number))",
                            exitCode: error.exitCode
                        )
                    }
                    let id = body.removeValue(forKey: "_id")?.stringValue
                    let written = try await datastore.createDocument(id: id, body: body)
                    // Unbuffered: the line is out as soon as the document is committed.
                    FileHandle.standardOutput.write(Data("\(written.docID) \(written.revID)\n".utf8))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List live documents: ID and winning revision.")
        @OptionGroup var store: DatastoreOptions
        @Option(help: "Skip this many.") var offset = 0
        @Option(help: "At most this many.") var limit = 1000
        @Flag(help: "Print one JSON array of {\"id\", \"rev\"} ([] when there are none).") var json = false

        func run() async throws {
            try await store.run { datastore in
                let revisions = try await datastore.allDocuments(offset: offset, limit: limit)
                if json { return try printJSON(revisions.map { DocumentRevisionOutput(id: $0.docID, rev: $0.revID) }) }
                for revision in revisions { print("\(revision.docID) \(revision.revID)") }
            }
        }
    }

    struct Changes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print changed documents after a sequence: SEQUENCE ID REV, and \"deleted\" for tombstones."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "Only changes after this sequence.") var since: Int64 = 0
        @Option(help: "At most this many.") var limit = 1000
        @Flag(help: "Print one JSON object: {\"results\": [{\"seq\", \"id\", \"rev\", \"deleted\"}], \"last_seq\"}.")
        var json = false

        func run() async throws {
            try await store.run { datastore in
                let page = try await datastore.changes(since: since, limit: limit)
                if json { return try printJSON(ChangesOutput(page)) }
                for change in page.changes {
                    print("\(change.sequence) \(change.docID) \(change.revID)\(change.isDeleted ? " deleted" : "")")
                }
            }
        }
    }

    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach a file to the document's current revision (streamed); prints the new ID and revision."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "The attachment's name.") var attachment: String
        @Option(help: "Its MIME type.") var contentType = "application/octet-stream"
        @Argument(help: "The file to attach.") var file: String
        @Flag(help: "Show a progress bar even when standard error is not a terminal.") var progress = false

        func run() async throws {
            try await store.run { datastore in
                let current = try await datastore.document(id: id)
                // The size only sizes the progress bar; reading the file reports its own error.
                let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? nil
                let bar = progress ? ProgressBar(total: size, enabled: true) : ProgressBar(total: size)
                let written = try await datastore.addAttachment(
                    named: attachment,
                    contentType: contentType,
                    to: current,
                    fromFile: URL(fileURLWithPath: file),
                    progress: { bar.update(stage: "attaching", done: $0) }
                )
                bar.finish()
                print("\(written.docID) \(written.revID)")
            }
        }
    }

    struct AttachmentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attachment",
            abstract: "Write an attachment to a new file, only once all of it authenticated."
        )
        @OptionGroup var store: DatastoreOptions
        @Option(help: "The document ID.") var id: String
        @Option(help: "A revision (the winning one when absent).") var rev: String?
        @Option(help: "The attachment's name.") var attachment: String
        @Argument(help: "The file to create (never overwritten), as `file get` takes it.") var destination: String?
        @Option(help: ArgumentHelp("The file to create (the same as the argument).", visibility: .hidden))
        var output: String?
        @Flag(help: "Show a progress bar even when standard error is not a terminal.") var progress = false

        func validate() throws {
            guard (destination == nil) != (output == nil) else {
                throw ValidationError("give the file to create: `store attachment … --attachment NAME FILE`")
            }
        }

        func run() async throws {
            let output = destination ?? output ?? ""
            try await store.run { datastore in
                let revision = try await datastore.document(id: id, rev: rev)
                let size = revision.attachments[attachment].map { Int64(clamping: $0.length) }
                let bar = progress ? ProgressBar(total: size, enabled: true) : ProgressBar(total: size)
                try await datastore.readAttachment(
                    named: attachment,
                    of: revision,
                    to: URL(fileURLWithPath: output),
                    progress: { bar.update(stage: "reading", done: $0) }
                )
                bar.finish()
                print("wrote \(output)")
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify every page (cipher_integrity_check) and the structure; print the document count."
        )
        @OptionGroup var store: DatastoreOptions

        func run() async throws {
            try await store.run { datastore in
                let problems = try await datastore.integrityCheck()
                let count = try await datastore.documentCount()
                guard problems.isEmpty else {
                    throw CLIError(
                        description: "error: \(problems.prefix(5).joined(separator: "; "))",
                        exitCode: .init(4)
                    )
                }
                print("ok \(count) documents")
            }
        }
    }

    struct Compact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove old revisions' bodies and shrink the file.")
        @OptionGroup var store: DatastoreOptions

        func run() async throws {
            try await store.run { datastore in
                print("removed \(try await datastore.compact()) bodies")
            }
        }
    }

    /// A revision as one line of JSON with `_id`, `_rev` (and `_deleted` for a tombstone), keys sorted.
    static func json(_ revision: DocumentRevision) throws -> String {
        var body = revision.body
        body["_id"] = .string(revision.docID)
        body["_rev"] = .string(revision.revID)
        if revision.isDeleted { body["_deleted"] = .bool(true) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(body), as: UTF8.self)
    }

    /// A JSON object from bytes, or a usage error.
    static func object(from data: Data) throws -> [String: JSONValue] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data), case .object(let body) = value else {
            throw CLIError(description: "error: the input is not a JSON object", exitCode: .init(4))
        }
        return body
    }
}

/// A document's ID and winning revision as `store list --json` prints it.
struct DocumentRevisionOutput: Encodable {
    var id: String
    var rev: String
}

/// A page of the changes feed as `store changes --json` prints it (CouchDB's field names).
struct ChangesOutput: Encodable {
    struct Change: Encodable {
        var seq: Int64
        var id: String
        var rev: String
        var deleted: Bool
    }

    var results: [Change]
    var lastSeq: Int64

    enum CodingKeys: String, CodingKey {
        case results
        case lastSeq = "last_seq"
    }

    init(_ page: ChangesPage) {
        results = page.changes.map { Change(seq: $0.sequence, id: $0.docID, rev: $0.revID, deleted: $0.isDeleted) }
        lastSeq = page.lastSequence
    }
}
