// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomCore
import StrongroomServer
import StrongroomServerPostgres
import StrongroomWire

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage registration tokens.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a registration token and print it.")
        @OptionGroup var data: DataOptions
        @Option(help: "A name to recognise it by.") var name = "token"
        @Option(help: "How many registrations it allows (default: unlimited).") var maximumUses: Int?

        func run() async throws {
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try await data.withStore(creating: true) { store in
                try await store.createRegistrationToken(
                    StoredRegistrationToken(token: token, name: name, uses: 0, maximumUses: maximumUses, enabled: true)
                )
            }
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registration tokens.")
        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON array.") var json = false

        /// One token as `--json` prints it.
        struct Entry: Encodable {
            var token: String
            var name: String
            var uses: Int
            var maximumUses: Int?
            var enabled: Bool
            enum CodingKeys: String, CodingKey {
                case token, name, uses, enabled
                case maximumUses = "maximum_uses"
            }
        }

        func run() async throws {
            let tokens = try await data.withStore { try await $0.registrationTokens() }
            let entries = tokens.map {
                Entry(token: $0.token, name: $0.name, uses: $0.uses, maximumUses: $0.maximumUses, enabled: $0.enabled)
            }
            if json { return try printJSON(entries) }
            printTable(
                ["TOKEN", "NAME", "USES", "STATE"],
                entries.map {
                    [
                        $0.token, $0.name, "\($0.uses)/\($0.maximumUses.map(String.init) ?? "∞")",
                        $0.enabled ? "enabled" : "revoked",
                    ]
                }
            )
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a registration token.")
        @OptionGroup var data: DataOptions
        @Argument var token: String

        func run() async throws {
            guard try await data.withStore({ try await $0.revokeRegistrationToken(token) }) else {
                throw CommandFailure("no such token")
            }
            print("revoked")
        }
    }
}
