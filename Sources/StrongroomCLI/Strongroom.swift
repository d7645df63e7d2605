// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The `strongroom` command-line tool.
@main
struct Strongroom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom",
        abstract: "End-to-end encrypted storage and sharing, E3DB-compatible.",
        version: "0.1.0",
        subcommands: [KeysCommand.self, FileCommand.self, DemoCommand.self]
    )
}
