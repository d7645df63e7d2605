// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomServer
import StrongroomWire

/// `strongroom-server integrity list | show CLIENT | clear CLIENT`: the fraud-management view of check-in history,
/// and lifting a client's hold after a `compromised` report.
struct IntegrityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "integrity",
        abstract: "Show the integrity reports clients checked in; clear a client's hold.",
        subcommands: [List.self, Show.self, Clear.self]
    )

    static func printEntries(_ entries: [IntegrityHistoryEntry], json: Bool) throws {
        if json { return try printJSON(entries) }
        printTable(
            ["RECEIVED", "CLIENT", "INSTANCE", "NAME", "VERDICT", "FINDINGS"],
            entries.map { entry in
                let findings = entry.findings.filter { !$0.hasSuffix(":informational") }
                return [
                    Date(timeIntervalSince1970: TimeInterval(entry.receivedAt)).formatted(.iso8601), entry.clientID,
                    entry.instanceID, entry.instanceName, entry.verdict.rawValue,
                    findings.isEmpty ? "-" : findings.joined(separator: ","),
                ]
            }
        )
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The newest reports of every client: time, client, instance, name, verdict, findings."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "How many (1 to 100, default 20).") var limit = 20
        @Option(help: "Only reports older than this index (the last index of the previous page, from --json).")
        var before: Int64?
        @Flag(help: "Print JSON (with each whole report).") var json = false

        func run() async throws {
            guard (1...100).contains(limit) else { throw ValidationError("--limit is 1 to 100") }
            let entries = try await data.withStore {
                try await integrityEntries(store: $0, clientID: nil, limit: limit, before: before)
            }
            try IntegrityCommand.printEntries(entries, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One client's report history, newest first.")
        @OptionGroup var data: DataOptions
        @Option(help: "How many (1 to 100, default 20).") var limit = 20
        @Option(help: "Only reports older than this index (the last index of the previous page, from --json).")
        var before: Int64?
        @Flag(help: "Print JSON (with each whole report).") var json = false
        @Argument(help: "The client ID.") var clientID: String

        func run() async throws {
            guard let id = UUID(uuidString: clientID)?.uuidString.lowercased() else {
                throw ValidationError("the client ID is not a UUID")
            }
            guard (1...100).contains(limit) else { throw ValidationError("--limit is 1 to 100") }
            let entries = try await data.withStore {
                try await integrityEntries(store: $0, clientID: id, limit: limit, before: before)
            }
            try IntegrityCommand.printEntries(entries, json: json)
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lift a client's hold after a compromised report and forget its instances' verdicts.",
            discussion: "Running servers see it within five seconds."
        )
        @OptionGroup var data: DataOptions
        @Argument(help: "The client ID.") var clientID: String

        func run() async throws {
            guard let id = UUID(uuidString: clientID)?.uuidString.lowercased() else {
                throw ValidationError("the client ID is not a UUID")
            }
            let cleared = try await data.withStore { try await $0.clearIntegrity(clientID: id) }
            print(cleared ? "cleared \(id)" : "\(id) has no integrity verdict to clear")
        }
    }
}
