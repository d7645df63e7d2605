// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// Usage mistakes and their exit codes (issue 53 item 8): a mistyped command gets "did you mean", a missing input
/// file is exit 6 before any network round trip, and a shield command's network failure is the transport's exit.
@Suite struct CLIUsageTests {
    @Test("a mistyped command names the closest one, in both executables, at any depth")
    func typos() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            for (arguments, suggestion) in [
                (["shar"], "'share'"), (["store", "lst"], "'list'"), (["pki", "enrol", "--label", "x"], "'enroll'"),
            ] {
                let outcome = try await cli.run(arguments)
                #expect(outcome.status == 64, "\(arguments): \(outcome.output)")
                #expect(outcome.output.contains("did you mean \(suggestion)"), "\(arguments): \(outcome.output)")
            }
            let server = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["tokens", "list"],
                directory: home
            )
            #expect(server.status == 64 && server.output.contains("did you mean 'token'"), "\(server.output)")
            #expect(!server.output.contains("strongroom-server serve"), "not serve's usage: \(server.output)")
            #expect(!FileManager.default.fileExists(atPath: home.appending(path: "strongroom-data").path))
            // What is not a typo still works: help, options of the default command, an unrelated word, and words a
            // default subcommand takes (`protect IN OUT` is `protect file IN OUT`).
            #expect(try await cli.run(["help", "store"]).status == 0)
            let protect = try await cli.run(["protect", "missing.txt", "out.protected", "--key", "k"])
            #expect(!protect.output.contains("has no command"), "\(protect.output)")
            let unrelated = try await cli.run(["qqqqqqqq"])
            #expect(unrelated.status == 64 && !unrelated.output.contains("did you mean"), "\(unrelated.output)")
        }
    }

    @Test("a missing or unreadable input file is exit 6 with its reason, before the server is asked anything")
    func inputFiles() async throws {
        try await withTemporaryDirectory { home in
            try FileManager.default.createDirectory(at: home.appending(path: "tmp"), withIntermediateDirectories: true)
            let cli = CLISessionTests.CLI(url: "", home: home)
            // No profile and no server: the file is checked first.
            let put = try await cli.run(["file", "put", "--type", "x", "missing.bin"])
            #expect(put.status == 6 && put.output.contains("missing.bin: no such file"), "\(put.output)")
            let directory = try await cli.run(["file", "put", "--type", "x", "tmp"])
            #expect(directory.status == 6 && directory.output.contains("is a directory"), "\(directory.output)")
            let show = try await cli.run(["pki", "show", "missing.pem"])
            #expect(show.status == 6 && !show.output.contains("4 MiB"), "\(show.output)")
        }
    }

    @Test("a first command without a profile says to register; a URL without its scheme says to add one")
    func firstSteps() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            let whoami = try await cli.run(["whoami"])
            #expect(whoami.status == 7, "\(whoami.output)")
            #expect(whoami.output.contains("there is no profile alice in "), "\(whoami.output)")
            #expect(whoami.output.contains("strongroom register --url URL --token TOKEN"), "\(whoami.output)")
            let register = try await cli.run(["register", "--token", "t", "--url", "localhost:8080"])
            #expect(register.status == 4, "\(register.output)")
            #expect(register.output.contains("with its scheme: http://localhost:8080"), "\(register.output)")
            let profiles = home.appending(path: "profiles")
            #expect(!FileManager.default.fileExists(atPath: profiles.path), "reading never creates")
        }
    }

    @Test(
        "strongroom-server's start-up failures in the operator's words: port, address in use, data directory, database"
    )
    func serverStartFailures() async throws {
        try await withTemporaryDirectory { home in
            let running = try await ServerProcess(
                arguments: ["--data-directory", home.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { running.stop() }
            try Data().write(to: home.appending(path: "a-file"))
            let cases: [(arguments: [String], status: Int32, says: String)] = [
                (["--port", "99999"], 64, "--port is 0 to 65535"),
                (["--port", "\(running.port)"], 1, "127.0.0.1:\(running.port) is in use"),
                (
                    ["--port", "0", "--data-directory", home.appending(path: "a-file/data").path], 1,
                    "cannot be created: Not a directory"
                ),
                (
                    ["--port", "0", "--database-url", "postgres://app:pw-not-shown@127.0.0.1:1/app"], 1,
                    "PostgreSQL at 127.0.0.1:1 could not be reached"
                ),
            ]
            let second = home.appending(path: "second")
            for (arguments, status, says) in cases {
                // Bounded: a server that started after all would otherwise keep the test waiting.
                let outcome = try await ExternalProcess.run(
                    URL(fileURLWithPath: "/usr/bin/timeout"),
                    arguments: ["120", ServerProcess.executable.path, "serve"]
                        + (arguments.contains("--data-directory")
                            ? [] : ["--data-directory", second.path]) + arguments,
                    directory: home
                )
                // The `Error:` line is the one the operator reads.
                let last = outcome.output.split(separator: "\n").first { $0.hasPrefix("Error:") }.map(String.init) ?? ""
                #expect(outcome.status == status && last.contains(says), "\(arguments): \(outcome.output)")
                #expect(!last.contains("errno") && !last.contains("NSCocoaErrorDomain") && !last.contains("Generic"))
                #expect(!outcome.output.contains("pw-not-shown"), "the database password: \(outcome.output)")
                #expect(
                    !outcome.output.contains("PSQLError"),
                    "one line in our words, no driver log: \(outcome.output)"
                )
                if says.hasSuffix("is in use") {
                    #expect(
                        !FileManager.default.fileExists(atPath: second.path),
                        "a start that cannot listen creates nothing"
                    )
                }
            }
            let witness = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["witness", "serve", "--port", "70000", "--log-key", "x"],
                directory: home
            )
            #expect(witness.status == 64 && witness.output.contains("--port is 0 to 65535"), "\(witness.output)")
            // The log's key needs the server's token key, given to it here by the environment: without it, that is
            // what the error says (the database is there).
            let keyless = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["keylog", "key", "--data-directory", home.appending(path: "data").path],
                directory: home,
                environment: ["STRONGROOM_TOKEN_KEY": ""]
            )
            #expect(keyless.status == 1 && keyless.output.contains("there is no token key in"), "\(keyless.output)")
            // A witness on a port in use: its key is not created either.
            let key = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["keylog", "key", "--data-directory", home.appending(path: "data").path],
                directory: home,
                environment: ["STRONGROOM_TOKEN_KEY": ServerProcess.tokenKey]
            )
            let logKey = key.output.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(key.status == 0, "\(key.output)")
            let busy = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/timeout"),
                arguments: [
                    "120", ServerProcess.executable.path, "witness", "serve", "--port", "\(running.port)", "--log-key",
                    logKey, "--directory", home.appending(path: "witness").path,
                ],
                directory: home
            )
            #expect(busy.status == 1 && busy.output.contains("is in use"), "\(busy.output)")
            #expect(!FileManager.default.fileExists(atPath: home.appending(path: "witness").path), "no witness key")
        }
    }

    @Test("integrity check-in against a server that is not there: exit 10 and the cause, not 1 '[server]'")
    func checkInUnreachable() async throws {
        try await withTemporaryDirectory { home in
            let port = try ServerProcess.freePort()
            let server = try await ServerProcess(
                arguments: ["--data-directory", home.appending(path: "data").path, "--registration-token", "tok"]
            )
            let cli = CLISessionTests.CLI(url: server.baseURL, home: home)
            try Data("kc pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            let keychain = ["--keychain-file", "kc", "--passphrase-file", "kc.pass"]
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + keychain)
            _ = try await cli.ok(["register", "--token", "tok", "--url", server.baseURL])
            server.stop()
            _ = try await cli.ok(["profile", "set-url", "http://127.0.0.1:\(port)"])
            let outcome = try await cli.run(["integrity", "check-in"] + keychain)
            #expect(outcome.status == 10, "\(outcome.output)")
            #expect(outcome.output.contains("connection refused"), "\(outcome.output)")
        }
    }
}
