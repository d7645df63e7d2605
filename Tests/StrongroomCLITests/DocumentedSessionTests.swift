// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// Every `sh` block of README.md and the guides runs as written (issue 53): not a hand-kept copy of the commands, so
/// the documents cannot drift from what works.
///
/// Each block runs in a fresh folder that is also `HOME`, laid out as a checkout after `Scripts/run.sh`:
/// `.build/release/strongroom` and `strongroom-server` (the binaries built beside these tests) and a server serving
/// `strongroom-data`, reached where the documents say `127.0.0.1:8000` (the test server's port is the kernel's
/// choice; a second server a document starts on 8443 gets a free port too: the two substitutions). Blocks run with
/// bash `-e -o pipefail` and aliases expanded, as pasted into a shell. A block that cannot run here is preceded by
/// `<!-- runner: skip (why) -->` in the document; the skips are listed by the test so they stay few and visible.
@Suite struct DocumentedSessionTests {
    /// A fenced `sh` block and where it starts.
    struct Block: Sendable, CustomTestStringConvertible {
        let document: String
        let line: Int
        let text: String
        /// Why it does not run, from its marker.
        let skipped: String?

        var testDescription: String { "\(document):\(line)" }
    }

    /// README.md, CONTRIBUTING.md, Scripts/README.md and every Markdown file under docs/, found on disk, so a new
    /// guide is run without being listed.
    static var documents: [String] {
        get throws {
            let root = PythonSDK.repositoryRoot
            let docs = root.appending(path: "docs")
            guard let walker = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil) else {
                return ["README.md", "CONTRIBUTING.md", "Scripts/README.md"]
            }
            let guides = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "md" }
                .map { "docs/" + $0.path.dropFirst(docs.path.count + 1) }
            return ["README.md", "CONTRIBUTING.md", "Scripts/README.md"] + guides.sorted()
        }
    }

    /// The `sh` blocks of `document` (a path from the repository root).
    static func blocks(in document: String) throws -> [Block] {
        let lines = try String(contentsOf: PythonSDK.repositoryRoot.appending(path: document), encoding: .utf8)
            .components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```sh" else {
                index += 1
                continue
            }
            let start = index
            var end = index + 1
            while end < lines.count, lines[end] != "```" { end += 1 }
            let marker = lines[..<start].last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            let skipped =
                marker.hasPrefix("<!-- runner: skip")
                ? marker.replacingOccurrences(of: "<!-- runner: skip", with: "")
                    .replacingOccurrences(of: "-->", with: "").trimmingCharacters(in: .whitespaces) : nil
            blocks.append(
                Block(
                    document: document,
                    line: start + 1,
                    text: lines[(start + 1)..<min(end, lines.count)].joined(separator: "\n"),
                    skipped: skipped
                )
            )
            index = end + 1
        }
        return blocks
    }

    static func allBlocks() throws -> [Block] { try documents.flatMap(blocks(in:)) }

    /// The guide that is a tutorial: its blocks run in order, in one shell and one home, after the README's example.
    static let tutorial = "docs/CLI.md"

    /// Every block that runs on its own, in a fresh home (the tutorial's run together instead).
    static func standaloneBlocks() throws -> [Block] { try allBlocks().filter { $0.document != tutorial } }

    @Test("the documents have shell blocks, and every skip says why")
    func inventory() throws {
        let blocks = try Self.allBlocks()
        #expect(blocks.count >= 5)
        // A shell block under another fence would silently not run: every one is `sh`.
        for document in try Self.documents {
            let text = try String(contentsOf: PythonSDK.repositoryRoot.appending(path: document), encoding: .utf8)
            for fence in ["```bash", "```shell", "```console", "```zsh"] {
                #expect(!text.contains(fence), "\(document) has a \(fence) block: make it ```sh so it runs")
            }
        }
        for block in blocks where block.skipped != nil {
            #expect(block.skipped?.isEmpty == false, "\(block.testDescription): a skip without a reason")
        }
        let skipped = blocks.filter { $0.skipped != nil }.map { "\($0.testDescription) \($0.skipped ?? "")" }
        print("documented sessions: \(blocks.count - skipped.count) run, \(skipped.count) skipped: \(skipped)")
    }

    @Test("every shell block of the README and the guides runs as written", arguments: try Self.standaloneBlocks())
    func runs(block: Block) async throws {
        guard block.skipped == nil else { return }
        try await Self.run(block.text, named: block.testDescription)
    }

    @Test("docs/CLI.md runs top to bottom as a reader runs it: one shell, one home, after the README's example")
    func tutorialInOrder() async throws {
        let readme = try Self.blocks(in: "README.md").filter { $0.skipped == nil }
        let guide = try Self.blocks(in: Self.tutorial)
        #expect(guide.allSatisfy { $0.skipped == nil }, "the tutorial skips no block")
        try await Self.run(
            (readme + guide).map(\.text).joined(separator: "\n"),
            named: "README.md, then \(Self.tutorial)"
        )
    }

    /// Runs `script` with bash (`-e -o pipefail`, aliases on) in a fresh home beside a fresh server, as
    /// `Scripts/run.sh` starts it, with `.build/release` holding the CLI and the server.
    static func run(_ script: String, named name: String) async throws {
        try await withTemporaryDirectory { folder in
            let release = folder.appending(path: ".build/release")
            try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: folder.appending(path: "tmp"),
                withIntermediateDirectories: true
            )
            for (name, binary) in [
                ("strongroom", CLISessionTests.CLI.executable), ("strongroom-server", ServerProcess.executable),
            ] {
                try FileManager.default.createSymbolicLink(
                    at: release.appending(path: name),
                    withDestinationURL: binary
                )
            }
            // As `Scripts/run.sh` starts it: the token key (and so the key log's key) in the data directory.
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "strongroom-data").path],
                environment: ["STRONGROOM_TOKEN_KEY": ""]
            )
            defer { server.stop() }
            // A second server a document starts itself listens on 8443 there, on a free port here.
            let script = script.replacingOccurrences(of: "127.0.0.1:8000", with: "127.0.0.1:\(server.port)")
                .replacingOccurrences(of: "8443", with: "\(try ServerProcess.freePort())")
            let outcome = try await ExternalProcess.run(
                URL(fileURLWithPath: "/bin/bash"),
                arguments: ["-e", "-o", "pipefail", "-O", "expand_aliases", "-c", script],
                directory: folder,
                environment: [
                    "HOME": folder.path, "TMPDIR": folder.appending(path: "tmp").path,
                    "XDG_DATA_HOME": folder.appending(path: ".local/share").path,
                    "XDG_CONFIG_HOME": folder.appending(path: ".config").path,
                    "STRONGROOM_KEYCHAIN_PASSPHRASE": "documented sessions' keychain passphrase",
                ]
            )
            #expect(outcome.status == 0, "\(name) exited \(outcome.status):\n\(outcome.output)")
        }
    }
}
