// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomSync

extension DatastoreCommand {
    /// `strongroom store share`: let another client replicate this datastore.
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share a synced datastore with another client, read-write or read-only.",
            discussion: """
                The member gets the datastore's key (an E3DB share of its record type) and syncs it with \
                `store sync --shared OWNER/TYPE` (printed here) into a datastore of its own. A read-write member's \
                revisions reach every member; a read-only member's local edits are refused at push. Run it again \
                to change the access; `store unshare` ends it.
                """
        )
        @OptionGroup var store: SyncedDatastoreOptions
        @Option(help: ArgumentHelp("The client to share with: a client ID or a profile name.", valueName: "client"))
        var with: String
        @Flag(help: "Share read-only (the default is read-write).") var readOnly = false
        @OptionGroup var channel: ChannelOptions

        func run() async throws {
            let member = try await ClientReference.resolve(with, option: "--with", profiles: store.profile.directory)
            let client = try await store.client()
            let access: MemberAccess = readOnly ? .read : .readWrite
            let channel = try channel.parsed()
            let shared = try await store.withDatastore { datastore in
                let replicator = Replicator(
                    datastore: datastore,
                    name: store.name,
                    client: client,
                    channel: channel
                )
                try await replicator.share(with: member, access: access)
                return try await replicator.sharedDatastore()
            }
            print("shared with \(member.uuidString.lowercased()) (\(readOnly ? "read-only" : "read-write"))")
            print("the member syncs with: strongroom store sync --shared \(shared) --name NAME ...")
        }
    }

    /// `strongroom store unshare`: end a member's access.
    struct Unshare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop sharing a datastore with a client.",
            discussion: """
                The server refuses the client's reads at once, every replica refuses the revisions it writes from \
                now on (those written before stay), and on its next sync the client purges its copy unless it \
                keeps it (`store sync --keep-copy`). What it already copied, it can still read. The datastore's \
                keys rotate: yours now, each read-write member's at its next sync, so the client opens nothing \
                written afterwards, even with a copy of the server's data.
                """
        )
        @OptionGroup var store: SyncedDatastoreOptions
        @Option(help: ArgumentHelp("The member to remove: a client ID or a profile name.", valueName: "client"))
        var with: String
        @OptionGroup var channel: ChannelOptions
        @Flag(
            help: """
                Keep your key of the datastore (weaker: the member keeps the key your later revisions are under). \
                By default it rotates.
                """
        )
        var noRotate = false

        func run() async throws {
            let member = try await ClientReference.resolve(with, option: "--with", profiles: store.profile.directory)
            let client = try await store.client()
            let channel = try channel.parsed()
            if !noRotate {
                Interrupts.hint("the key rotation may be part done: your next `store sync` finishes it")
            }
            let rotation = try await store.withDatastore { datastore in
                try await Replicator(datastore: datastore, name: store.name, client: client, channel: channel)
                    .revoke(member, rotate: !noRotate)
            }
            print(
                "no longer shared with \(member.uuidString.lowercased())"
                    + (rotation.map { "; the datastore's key rotated to generation \($0.generation)" } ?? "")
            )
        }
    }

    /// `strongroom store members`: who shares the datastore.
    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the clients a synced datastore is shared with, as of its last sync."
        )
        @OptionGroup var store: SyncedDatastoreOptions
        @OptionGroup var channel: ChannelOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let client = try await store.client()
            let channel = try channel.parsed()
            let members = try await store.withDatastore { datastore in
                let replicator = try await Sync.replicator(
                    datastore,
                    name: store.name,
                    client: client,
                    shared: nil,
                    keepCopy: true,
                    channel: channel
                )
                return try await replicator.members()
            }
            let rows = members.map { [$0.clientID.uuidString.lowercased(), $0.access.rawValue] }
            if json {
                return try printJSON(rows.map { ["client_id": $0[0], "access": $0[1]] })
            }
            printTable(["CLIENT", "ACCESS"], rows)
        }
    }
}
