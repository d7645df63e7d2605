// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomServer
import StrongroomWire

/// `strongroom-server integrity list | show CLIENT`: the fraud-management view of check-in history.
struct IntegrityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "integrity",
        abstract: "Show the integrity reports clients checked in.",
        subcommands: [List.self, Show.self]
    )

    static func printEntries(_ entries: [IntegrityHistoryEntry], json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(entries), as: UTF8.self))
            return
        }
        for entry in entries {
            let findings = entry.findings.filter { !$0.hasSuffix(":informational") }
            print(
                "\(entry.receivedAt)\t\(entry.clientID)\t\(entry.instanceID)\t\(entry.instanceName)\t\(entry.verdict)\t"
                    + (findings.isEmpty ? "-" : findings.joined(separator: ","))
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The newest reports of every client: time, client, instance, name, verdict, findings."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "How many (default 100).") var limit = 100
        @Flag(help: "Print JSON (with each whole report).") var json = false

        func run() async throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit is 1 to 10000") }
            let entries = try await data.withStore {
                try await integrityEntries(store: $0, clientID: nil, limit: limit)
            }
            try IntegrityCommand.printEntries(entries, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One client's report history, newest first.")
        @OptionGroup var data: DataOptions
        @Option(help: "How many (default 100).") var limit = 100
        @Flag(help: "Print JSON (with each whole report).") var json = false
        @Argument(help: "The client ID.") var clientID: String

        func run() async throws {
            guard let id = UUID(uuidString: clientID)?.uuidString.lowercased() else {
                throw ValidationError("the client ID is not a UUID")
            }
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit is 1 to 10000") }
            let entries = try await data.withStore { try await integrityEntries(store: $0, clientID: id, limit: limit) }
            try IntegrityCommand.printEntries(entries, json: json)
        }
    }
}
