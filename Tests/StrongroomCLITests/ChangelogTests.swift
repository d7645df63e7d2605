// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// CHANGELOG.md keeps Keep a Changelog's form (issue 47 item 4): versions newest first, the standard sections, one
/// line per change, and the newest version is what both executables' `--version` print.
@Suite struct ChangelogTests {
    @Test("versions, sections, one line per change, and --version agrees")
    func form() async throws {
        let text = try String(
            contentsOf: PythonSDK.repositoryRoot.appending(path: "CHANGELOG.md"),
            encoding: .utf8
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let sections: Set = ["### Added", "### Changed", "### Deprecated", "### Removed", "### Fixed", "### Security"]
        var versions: [String] = []
        var inEntries = false
        for (number, line) in lines.enumerated() {
            if line.hasPrefix("## ") {
                let released = line.wholeMatch(of: /## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}/)
                #expect(line == "## [Unreleased]" || released != nil, "line \(number + 1): \(line)")
                if let released { versions.append(String(released.1)) }
                inEntries = false
            } else if line.hasPrefix("### ") {
                #expect(sections.contains(line), "line \(number + 1): not a Keep a Changelog section: \(line)")
                inEntries = true
            } else if inEntries, !line.isEmpty {
                #expect(line.hasPrefix("- "), "line \(number + 1): one line per change, not a continuation: \(line)")
            }
        }
        let newest = try #require(versions.first, "no released version")
        #expect(versions == versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending })
        for executable in [CLISessionTests.CLI.executable, ServerProcess.executable] {
            let outcome = try await ExternalProcess.run(executable, arguments: ["--version"])
            #expect(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines) == newest, "\(executable.path)")
        }
    }
}
