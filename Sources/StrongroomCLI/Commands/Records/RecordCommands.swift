// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomWire

/// `strongroom write`: encrypts fields and stores them as a new record.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Encrypt fields and write them as a new record; prints its ID."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(help: "The record type.") var type: String
    @Option(name: .customLong("plain"), help: "Plaintext (searchable) metadata, name=value; repeatable.")
    var plain: [String] = []
    @Option(help: "The fields as one JSON object of strings (- reads standard input).") var json: String?
    @Argument(help: "Fields as name=value (encrypted).") var fields: [String] = []

    func run() async throws {
        let data = try Fields.parse(fields, json: json)
        guard !data.isEmpty else {
            throw CLIError(description: "error: no fields to write", exitCode: .validationFailure)
        }
        let record = try await profile.client().write(
            type: type,
            data: data,
            plain: try Fields.parse(plain, json: nil)
        )
        print(RecordID(record.meta.recordID).description)
    }
}

/// `strongroom read`: fetches and decrypts one record.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "read", abstract: "Read and decrypt a record.")

    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The record ID.") var recordID: String
    @Option(name: .customLong("field"), help: "Only this field; repeatable.") var fields: [String] = []
    @Flag(help: "Print the record and its metadata as JSON.") var json = false

    func run() async throws {
        let id = try Fields.uuid(recordID, "record ID")
        let client = try await profile.client()
        let record = try await naming(missing: Fields.missingRecord(recordID)) {
            try await client.read(recordID: id, fields: fields.isEmpty ? nil : fields)
        }
        if json {
            try printJSON(RecordOutput(record))
        } else {
            for (name, value) in record.data.sorted(by: { $0.key < $1.key }) { print("\(name)=\(value)") }
        }
    }
}

/// `strongroom update`: replaces a record's fields, refusing if it changed since `--record-version`.
struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change a record's fields (exit 9 if it changed since --record-version).",
        discussion: """
            The fields you name are set and the others kept; --replace makes the fields you name the record's only \
            ones (E3DB itself replaces a record's data on every update). Prints the new version, and on standard \
            error which fields were kept.
            """
    )

    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The record ID.") var recordID: String
    @Option(help: "The record version you read (default: the current one).")
    var recordVersion: String?
    @Option(name: .customLong("plain"), help: "New plaintext metadata, name=value; repeatable (default: keep).")
    var plain: [String] = []
    @Option(help: "The new fields as one JSON object of strings (- reads standard input).") var json: String?
    @Argument(help: "The new fields as name=value.") var fields: [String] = []
    @Flag(help: "Make the given fields the record's only ones (default: keep the fields not named).")
    var replace = false

    func run() async throws {
        let client = try await profile.client()
        let id = try Fields.uuid(recordID, "record ID")
        let data = try Fields.parse(fields, json: json)
        guard !data.isEmpty else {
            throw CLIError(description: "error: no fields given", exitCode: .validationFailure)
        }
        // Keeping fields needs the current ones, decrypted; with --record-version, a newer record is refused
        // by the server as a conflict, so nothing read here is written over a change made since.
        let (updated, kept) = try await naming(missing: Fields.missingRecord(recordID)) {
            let current = replace ? nil : try await client.read(recordID: id)
            var meta: Meta
            if let current {
                meta = current.meta
            } else {
                meta = try await client.read(recordID: id, fields: []).meta
            }
            if let recordVersion { meta.version = recordVersion }
            let kept = (current?.data ?? [:]).filter { data[$0.key] == nil }
            let updated = try await client.update(
                meta: meta,
                newData: kept.merging(data) { _, new in new },
                plain: plain.isEmpty ? meta.plain : try Fields.parse(plain, json: nil)
            )
            return (updated, kept)
        }
        print(updated.meta.version)
        let note =
            replace
            ? "replaced: the record now holds only \(data.keys.sorted().joined(separator: ", "))"
            : kept.isEmpty ? "" : "kept \(kept.keys.sorted().joined(separator: ", "))"
        if !note.isEmpty { FileHandle.standardError.write(Data((note + "\n").utf8)) }
    }
}

/// `strongroom delete`: deletes a record.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a record (exit 9 if it changed since --record-version)."
    )

    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The record ID.") var recordID: String
    @Option(help: "The record version you read (default: the current one).")
    var recordVersion: String?

    func run() async throws {
        let client = try await profile.client()
        let id = try Fields.uuid(recordID, "record ID")
        try await naming(missing: Fields.missingRecord(recordID)) {
            let current: String
            if let recordVersion {
                current = recordVersion
            } else {
                current = try await client.read(recordID: id, fields: []).meta.version
            }
            try await client.delete(recordID: id, version: current)
        }
        print("deleted")
    }
}

/// `strongroom query`: searches records, paging through all matches.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Search records: a table by default, JSON with --json."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(name: .customLong("type"), help: "Only this type; repeatable.") var types: [String] = []
    @Option(name: .customLong("writer"), help: "Only this writer's records; repeatable.") var writers: [String] = []
    @Option(name: .customLong("user"), help: "Only records about this user; repeatable.") var users: [String] = []
    @Option(name: .customLong("record"), help: "Only this record; repeatable.") var records: [String] = []
    @Flag(help: "Include records others shared with this client.") var allWriters = false
    @Flag(help: "Metadata only: do not fetch or decrypt the fields.") var noData = false
    @Option(help: "Stop after this many records.") var limit: Int?
    @Option(help: "Records per page.") var pageSize = 100
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let params = QueryParams(
            count: pageSize,
            types: types,
            includesAllWriters: allWriters,
            writerIDs: try writers.map { try Fields.uuid($0, "writer") },
            userIDs: try users.map { try Fields.uuid($0, "user") },
            recordIDs: try records.map { try Fields.uuid($0, "record") },
            includesData: !noData
        )
        var found: [Record] = []
        for try await record in try await profile.client().records(matching: params) {
            found.append(record)
            if let limit, found.count >= limit { break }
        }
        if json {
            try printJSON(found.map(RecordOutput.init))
            return
        }
        print(["RECORD ID", "TYPE", "WRITER", "MODIFIED", "FIELDS"].joined(separator: "\t"))
        let dates = ISO8601DateFormatter()
        for record in found {
            var fields = record.data.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            // A file record has no fields: its name and size say what it is.
            if let file = record.meta.fileMeta {
                fields.append("file=\(file.fileName ?? "(unnamed)") (\(file.size) bytes encrypted)")
            }
            print(
                [
                    RecordID(record.meta.recordID).description, record.meta.type,
                    ClientID(record.meta.writerID).description, dates.string(from: record.meta.lastModified),
                    fields.joined(separator: " "),
                ].joined(separator: "\t")
            )
        }
    }
}
