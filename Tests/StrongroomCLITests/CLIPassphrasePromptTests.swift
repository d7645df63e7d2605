// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// A passphrase typed at a terminal prompt: a mistyped one may be typed again, three tries in all (as sudo allows).
/// The real binary runs on a pseudo-terminal (Python's `pty.fork`, so the prompt's `/dev/tty` is that terminal), and
/// the script types only after it has seen each prompt.
@Suite struct CLIPassphrasePromptTests {
    /// Runs the CLI on a pseudo-terminal, typing each of `typed` after the next prompt; its output then `exit N`.
    static let driver = #"""
        import os, pty, select, sys
        cli, home, keychain = sys.argv[1:4]
        typed = sys.argv[4:]
        pid, fd = pty.fork()
        if pid == 0:
            env = {k: v for k, v in os.environ.items() if k != "STRONGROOM_KEYCHAIN_PASSPHRASE"}
            env["STRONGROOM_HOME"] = home
            os.execve(cli, [cli, "keychain", "list", "--keychain-file", keychain], env)
        seen = b""
        def more():
            global seen
            ready, _, _ = select.select([fd], [], [], 300)
            if not ready:
                raise SystemExit("no output for 300 s: " + seen.decode(errors="replace"))
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            seen += chunk
            return chunk != b""
        prompts = 0
        for line in typed:
            while seen.count(b"passphrase:") <= prompts:
                if not more():
                    break
            prompts += 1
            os.write(fd, line.encode() + b"\n")
        while more():
            pass
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode(errors="replace"))
        sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
        """#

    static func run(typing typed: [String]) async throws -> (output: String, status: Int32, prompts: Int) {
        try await withTemporaryDirectory { home in
            let keychain = home.appending(path: "typed.keychain")
            let create = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keychain", "create", "--kdf", "minimum", "--keychain-file", keychain.path],
                directory: home,
                environment: ["STRONGROOM_KEYCHAIN_PASSPHRASE": "right pass", "STRONGROOM_HOME": home.path]
            )
            try #require(create.status == 0, "\(create.output)")
            let script = home.appending(path: "driver.py")
            try driver.write(to: script, atomically: true, encoding: .utf8)
            let outcome = try await ExternalProcess.run(
                URL(filePath: "/usr/bin/env"),
                arguments: ["python3", script.path, CLISessionTests.CLI.executable.path, home.path, keychain.path]
                    + typed,
                directory: home
            )
            try #require(outcome.status == 0, "the driver failed: \(outcome.output)")
            let last = try #require(outcome.output.split(separator: "\n").last, "\(outcome.output)")
            let status = try #require(Int32(last.dropFirst("exit ".count)), "\(outcome.output)")
            return (outcome.output, status, outcome.output.components(separatedBy: "passphrase:").count - 1)
        }
    }

    @Test("a mistyped passphrase is asked again, and the second try opens the keychain")
    func retry() async throws {
        let (output, status, prompts) = try await Self.run(typing: ["wrong pass", "right pass"])
        #expect(status == 0, "\(output)")
        #expect(prompts == 2, "\(output)")
        #expect(output.contains("that passphrase does not open the keychain: try again"), "\(output)")
    }

    @Test("three wrong tries end it with the wrong-passphrase exit code, and no fourth prompt")
    func threeTries() async throws {
        let (output, status, prompts) = try await Self.run(typing: ["one", "two", "three"])
        #expect(status == 3, "\(output)")
        #expect(prompts == 3, "\(output)")
    }
}
