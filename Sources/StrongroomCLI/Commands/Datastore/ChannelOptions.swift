// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomDatastore
import StrongroomSync

/// `--channel NAME --selector JSON`: one channel of a synced datastore, its own record type and key.
struct ChannelOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Sync, share or list one channel of the datastore (its own key), given with --selector.",
            valueName: "name"
        )
    )
    var channel: String?
    @Option(
        help: ArgumentHelp("The Cloudant Query selector of the channel's documents (JSON).", valueName: "json")
    )
    var selector: String?

    /// The channel, or nil without --channel.
    func parsed() throws -> ReplicationChannel? {
        guard let channel else {
            guard selector == nil else {
                throw CLIError(description: "error: --selector goes with --channel", exitCode: .validationFailure)
            }
            return nil
        }
        guard let selector else {
            throw CLIError(description: "error: --channel needs --selector", exitCode: .validationFailure)
        }
        return try ReplicationChannel(name: channel, selector: try Self.filter(selector))
    }

    /// A selector given on the command line.
    static func filter(_ text: String) throws -> SelectorFilter {
        try SelectorFilter(try DatastoreCommand.object(from: Data(text.utf8)))
    }
}
