// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomWire

/// The options `share` and `revoke` have in common, and the one place they act.
struct ShareTarget: ParsableArguments {
    @OptionGroup var profile: ProfileOptions
    @Option(help: "The record type.") var type: String
    @Option(help: "The reader: a client ID or a profile name.") var reader: String
    @Option(help: "Act for this writer (a client ID or a profile name), as their authorizer.") var onBehalfOf: String?

    /// Grants (`share`) or withdraws (`revoke`, rotating the type's key unless `rotate` is false) and returns the
    /// line to print.
    func apply(share: Bool, rotate: Bool = true) async throws -> String {
        let client = try await profile.client()
        let readerID = try await ClientReference.resolve(reader, option: "--reader", profiles: profile.directory)
        var writerID: UUID?
        if let onBehalfOf {
            writerID = try await ClientReference.resolve(
                onBehalfOf,
                option: "--on-behalf-of",
                profiles: profile.directory
            )
        }
        let whom =
            if let onBehalfOf, writerID != nil {
                "no client \(reader), or no writer \(onBehalfOf) you act for, on this server"
            } else {
                "no client \(reader) on this server"
            }
        // Revoking what this client never shared changes nothing: say so rather than "revoked" (an unknown reader is
        // still "not found", from the server's answer below).
        var wasShared = true
        if !share, writerID == nil {
            wasShared = try await client.outgoingSharing().contains { $0.type == type && $0.readerID == readerID }
        }
        var rotation: KeyRotationReport?
        try await naming(missing: "\(whom): check the ID (`strongroom whoami` shows a client its own)") {
            switch (share, writerID) {
            case (true, nil): try await client.share(type: type, readerID: readerID)
            case (false, nil):
                rotation = try await client.revoke(type: type, readerID: readerID, rotate: rotate && wasShared)
            case (true, let writer?): try await client.share(onBehalfOf: writer, type: type, readerID: readerID)
            case (false, let writer?):
                rotation = try await client.revoke(onBehalfOf: writer, type: type, readerID: readerID, rotate: rotate)
            }
        }
        guard wasShared else {
            let nothing = "nothing to revoke: \(type) was not shared with \(ClientID(readerID).description)"
            // The same revoke run again after it was stopped (Ctrl-C, a kill, a lost connection) past the rotation's
            // commit: the reader is revoked already, and what is left is re-wrapping the records.
            guard rotate, writerID == nil else { return nothing }
            guard let finished = try await FinishRotation.run(of: type, by: client),
                finished.recordsRewrapped > 0 || finished.recordsLeft > 0
            else { return nothing }
            return nothing + "; finished its key rotation to generation \(finished.generation) ("
                + Self.records(finished.recordsRewrapped) + " re-wrapped" + Self.left(finished) + ")"
        }
        let line =
            "\(share ? "shared" : "revoked") \(type) \(share ? "with" : "from") \(ClientID(readerID).description)"
        guard let rotation else { return line }
        if rotation.rewrapPending {
            return line
                + "; the writer's key rotated to generation \(rotation.generation) (sealed to \(rotation.readers) "
                + "reader\(rotation.readers == 1 ? "" : "s")); the writer re-wraps its older records with "
                + "`strongroom keys finish-rotation --type \(type)`"
        }
        return line
            + "; its key rotated to generation \(rotation.generation) (sealed to \(rotation.readers) "
            + "reader\(rotation.readers == 1 ? "" : "s"), \(Self.records(rotation.recordsRewrapped)) re-wrapped"
            + Self.left(rotation) + ")"
    }

    static func records(_ count: Int) -> String { "\(count) record\(count == 1 ? "" : "s")" }

    /// Records a rotation could not re-wrap, and what to do about them.
    static func left(_ report: KeyRotationReport) -> String {
        guard report.recordsLeft > 0 else { return "" }
        return "; \(report.recordsLeft) left under an older key: run the same command again to finish"
    }
}

/// `strongroom share`: lets a reader read this client's records of a type (or, as an authorizer, a writer's).
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share records of a type with a reader."
    )
    @OptionGroup var target: ShareTarget

    func run() async throws { print(try await target.apply(share: true)) }
}

/// `strongroom revoke`: withdraws a share.
struct RevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Stop sharing records of a type with a reader."
    )
    @OptionGroup var target: ShareTarget
    @Flag(
        help: """
            Only deny the reader's reads and delete its key (weaker: it keeps the key every later record of the \
            type is under). By default the type's key is rotated and the records re-wrapped.
            """
    )
    var noRotate = false

    func run() async throws {
        if !noRotate {
            Interrupts.hint("the key rotation may be part done: run the same command again to finish it")
        }
        print(try await target.apply(share: false, rotate: !noRotate))
    }
}

/// `strongroom sharing`: who this client shares with and who shares with it.
struct SharingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sharing",
        abstract: "List outgoing and incoming shares."
    )

    @OptionGroup var profile: ProfileOptions
    @Flag(help: "Print one JSON array.") var json = false

    /// One share as `--json` prints it.
    struct Share: Encodable {
        var direction: String
        var type: String
        var clientID: String
        var name: String?
        enum CodingKeys: String, CodingKey {
            case direction, type, name
            case clientID = "client_id"
        }
    }

    func run() async throws {
        let client = try await profile.client()
        let shares =
            try await client.outgoingSharing().map {
                Share(
                    direction: "outgoing",
                    type: $0.type,
                    clientID: ClientID($0.readerID).description,
                    name: $0.readerName
                )
            }
            + client.incomingSharing().map {
                Share(
                    direction: "incoming",
                    type: $0.type,
                    clientID: ClientID($0.writerID).description,
                    name: $0.writerName
                )
            }
        if json { return try printJSON(shares) }
        guard !shares.isEmpty else {
            print("none: this client shares nothing and nothing is shared with it")
            return
        }
        printTable(
            ["DIRECTION", "TYPE", "CLIENT", "NAME"],
            shares.map { [$0.direction, $0.type, $0.clientID, $0.name ?? ""] }
        )
    }
}

/// `strongroom authorizer add|remove|list`.
struct AuthorizerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorizer",
        abstract: "Let another client share your records on your behalf.",
        subcommands: [Add.self, Remove.self, List.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow an authorizer to share a type.")
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The authorizer: a client ID or a profile name.") var authorizer: String
        @Option(help: "The record type.") var type: String

        func run() async throws {
            let id = try await ClientReference.resolve(
                authorizer,
                option: "--authorizer",
                profiles: profile.directory
            )
            try await profile.client().add(authorizerID: id, type: type)
            print("added authorizer for \(type)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw an authorizer (one type, or all).")
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The authorizer: a client ID or a profile name.") var authorizer: String
        @Option(help: "Only this type (default: every type).") var type: String?
        @Flag(
            help: """
                Only delete the authorizer's key (weaker: it keeps the key every later record of the type is under). \
                By default each type's key is rotated and the records re-wrapped.
                """
        )
        var noRotate = false

        func run() async throws {
            let client = try await profile.client()
            let id = try await ClientReference.resolve(
                authorizer,
                option: "--authorizer",
                profiles: profile.directory
            )
            if !noRotate {
                Interrupts.hint(
                    type == nil
                        ? "the key rotations may be part done: run `authorizer remove --type TYPE` for each type again"
                        : "the key rotation may be part done: run the same command again to finish it"
                )
            }
            if let type {
                try await client.remove(authorizerID: id, type: type, rotate: !noRotate)
            } else {
                try await client.remove(authorizerID: id, rotate: !noRotate)
            }
            print(noRotate ? "removed authorizer" : "removed authorizer; its types' keys rotated")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your authorizers and whom you authorize for.")
        @OptionGroup var profile: ProfileOptions
        @Flag(help: "Print one JSON array.") var json = false

        /// One authorization as `--json` prints it.
        struct Authorization: Encodable {
            var role: String
            var type: String
            var clientID: String
            enum CodingKeys: String, CodingKey {
                case role, type
                case clientID = "client_id"
            }
        }

        func run() async throws {
            let client = try await profile.client()
            let rows =
                try await client.authorizers().map {
                    Authorization(
                        role: "authorizer",
                        type: $0.type,
                        clientID: ClientID($0.authorizerID).description
                    )
                }
                + client.authorizedBy().map {
                    Authorization(role: "authorized-by", type: $0.type, clientID: ClientID($0.writerID).description)
                }
            if json { return try printJSON(rows) }
            printTable(["ROLE", "TYPE", "CLIENT"], rows.map { [$0.role, $0.type, $0.clientID] })
        }
    }
}
