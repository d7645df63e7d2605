// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Record fields given as `name=value` arguments, or as one JSON object of strings with `--json` (`-` reads stdin).
enum Fields {
    static func parse(_ pairs: [String], json: String?) throws -> [String: String] {
        var fields: [String: String] = [:]
        if let json {
            let data = json == "-" ? FileHandle.standardInput.readDataToEndOfFile() : Data(json.utf8)
            guard let object = try? JSONDecoder().decode([String: String].self, from: data) else {
                throw CLIError(
                    description: "error: --json must be a JSON object of strings",
                    exitCode: .validationFailure
                )
            }
            fields = object
        }
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CLIError(description: "error: expected name=value, got \(pair)", exitCode: .validationFailure)
            }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return fields
    }

    /// A UUID argument, or a usage error naming it.
    static func uuid(_ text: String, _ what: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw CLIError(description: "error: \(what) \(text) is not a UUID", exitCode: .validationFailure)
        }
        return id
    }

    /// What `read`, `update` and `delete` say when the server has no record `id` for this client.
    static func missingRecord(_ id: String) -> String {
        "no record \(id) for this client: it does not exist, was deleted, or was not shared with you"
    }

    /// What `file get` says when the server has no file record `id` for this client.
    static func missingFile(_ id: String) -> String {
        "no file \(id) for this client: it does not exist, was deleted, was never fully uploaded, or was not shared "
            + "with you"
    }

    /// Reads a JSON file, or standard input for `-`.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(description: "error: cannot read \(path)", exitCode: ExitCode(6))
        }
        return data
    }
}

/// JSON for standard output: sorted keys, pretty-printed, slashes unescaped.
func printJSON(_ value: some Encodable) throws { print(try Listing.json(value)) }

/// Prints a listing as columns under `headers` (nothing when there are no rows).
func printTable(_ headers: [String], _ rows: [[String]]) {
    // An empty listing says so, rather than a header over nothing (`--json` prints `[]`).
    guard !rows.isEmpty else {
        print("none")
        return
    }
    for line in Listing.table(headers: headers, rows: rows) { print(line) }
}

/// A record as the CLI prints it with `--json`.
struct RecordOutput: Encodable {
    var recordID: String
    var writerID: String
    var userID: String
    var type: String
    var version: String
    var created: Date
    var lastModified: Date
    var plain: [String: String]
    var data: [String: String]

    init(_ record: Record) {
        recordID = RecordID(record.meta.recordID).description
        writerID = ClientID(record.meta.writerID).description
        userID = ClientID(record.meta.userID).description
        type = record.meta.type
        version = record.meta.version
        created = record.meta.created
        lastModified = record.meta.lastModified
        plain = record.meta.plain
        data = record.data
    }

    enum CodingKeys: String, CodingKey {
        case recordID = "record_id", writerID = "writer_id", userID = "user_id", type, version, created
        case lastModified = "last_modified", plain, data
    }
}

/// An input file named on the command line, checked before anything else happens (a typo costs no network round
/// trip, and says what is wrong with the path): exit 6.
enum InputFile {
    /// The size of the regular, readable file at `path`.
    static func size(_ path: String) throws -> Int64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError(description: "error: \(path): no such file", exitCode: .init(6))
        }
        guard !isDirectory.boolValue else {
            throw CLIError(description: "error: \(path) is a directory, not a file", exitCode: .init(6))
        }
        guard FileManager.default.isReadableFile(atPath: path),
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        else {
            throw CLIError(description: "error: \(path) cannot be read (permissions?)", exitCode: .init(6))
        }
        return size
    }
}
