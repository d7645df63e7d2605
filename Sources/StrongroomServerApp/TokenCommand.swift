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

        func run() async throws {
            let tokens = try await data.withStore { try await $0.registrationTokens() }
            for token in tokens {
                let cap = token.maximumUses.map(String.init) ?? "∞"
                print(
                    "\(token.token)  \(token.name)  uses \(token.uses)/\(cap)  \(token.enabled ? "enabled" : "revoked")"
                )
            }
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
