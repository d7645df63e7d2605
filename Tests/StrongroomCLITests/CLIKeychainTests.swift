// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom keychain …` and profiles kept in the keychain, through the real binary.
@Suite struct CLIKeychainTests {
    @Test("create, store, get, list, remove, change the passphrase; a profile in the keychain; no plaintext on disk")
    func keychainSession() async throws {
        try await withTemporaryDirectory { home in
            let file = home.appending(path: "cli.keychain")
            func run(
                _ arguments: [String],
                passphrase: String = "first pass",
                input: String? = nil
            ) async throws
                -> ExternalProcess.Outcome
            {
                try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: arguments + ["--keychain-file", file.path],
                    directory: home,
                    environment: [
                        "STRONGROOM_KEYCHAIN_PASSPHRASE": passphrase, "STRONGROOM_HOME": home.path,
                    ],
                    input: input
                )
            }
            func ok(
                _ arguments: [String],
                passphrase: String = "first pass",
                input: String? = nil
            ) async throws -> String {
                let outcome = try await run(arguments, passphrase: passphrase, input: input)
                try #require(outcome.status == 0, "strongroom \(arguments.joined(separator: " ")): \(outcome.output)")
                return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            _ = try await ok(["keychain", "create", "--kdf", "minimum"])

            // Two processes writing at once: flock serialises them and every item lands.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<2 {
                    group.addTask {
                        for index in 0..<6 {
                            _ = try await ok(
                                ["keychain", "store", "--account", "w\(writer)-\(index)"],
                                input: "parallel-\(writer)-\(index)\n"
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await ok(["keychain", "list"]).split(separator: "\n").count == 13)  // a header and 12 items
            #expect(try await ok(["keychain", "get", "--account", "w1-5"]) == "parallel-1-5")
            let service = ["--account", "deploy-bot", "--service", "registry.example.com"]
            _ = try await ok(["keychain", "store", "--label", "Registry token"] + service, input: "tok-3f9a-secret\n")
            #expect(try await ok(["keychain", "get"] + service) == "tok-3f9a-secret")
            // A userPresence item: stored and read with the passphrase given again (here from the environment).
            let guarded = ["--account", "guarded", "--service", "vault"]
            _ = try await ok(["keychain", "store", "--user-presence"] + guarded, input: "needs presence\n")
            #expect(try await ok(["keychain", "get"] + guarded) == "needs presence")
            #expect(try await ok(["keychain", "list"]).contains("Registry token"))
            #expect(try await run(["keychain", "store"] + service, input: "again\n").status == 9)
            #expect(try await run(["keychain", "get"] + service, passphrase: "wrong").status == 3)
            #expect(try await run(["keychain", "get", "--account", "nobody"]).status == 7)

            let newPassphrase = home.appending(path: "new.txt")
            try "second pass\n".write(to: newPassphrase, atomically: true, encoding: .utf8)
            _ = try await ok([
                "keychain", "change-passphrase", "--new-passphrase-file", newPassphrase.path, "--kdf", "minimum",
            ])
            #expect(try await run(["keychain", "get"] + service).status == 3)
            #expect(try await ok(["keychain", "get"] + service, passphrase: "second pass") == "tok-3f9a-secret")

            // A client profile kept in the keychain instead of a file.
            try await withTemporaryDirectory { data in
                let server = try await ServerProcess(arguments: [
                    "--data-directory", data.path, "--registration-token", "tok",
                ])
                defer { server.stop() }
                let id = try await ok(
                    ["register", "--token", "tok", "--url", server.baseURL, "--in-keychain", "--profile", "vault"],
                    passphrase: "second pass"
                )
                #expect(
                    try await ok(["whoami", "--in-keychain", "--profile", "vault"], passphrase: "second pass").contains(
                        id
                    )
                )
                #expect(!FileManager.default.fileExists(atPath: home.appending(path: "vault").path))
            }

            _ = try await ok(["keychain", "remove"] + service, passphrase: "second pass")
            #expect(try await run(["keychain", "get"] + service, passphrase: "second pass").status == 7)

            let findings = try PlaintextScan.scan(
                file,
                for: ["tok-3f9a-secret", "deploy-bot", "registry.example.com", "Registry token", "vault", "parallel-"]
            )
            #expect(findings.isEmpty, "\(findings)")
        }
    }

    @Test("$HOME is honoured: the default keychain goes to $HOME/.strongroom/keychain, not the account's home")
    func homeIsHonoured() async throws {
        try await withTemporaryDirectory { home in
            let outcome = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keychain", "create", "--kdf", "minimum"],
                directory: home,
                environment: [
                    "HOME": home.path, "XDG_DATA_HOME": "", "STRONGROOM_KEYCHAIN": "",
                    "STRONGROOM_KEYCHAIN_PASSPHRASE": "default pass",
                ]
            )
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(FileManager.default.fileExists(atPath: home.appending(path: ".strongroom/keychain").path))
        }
    }

    @Test("without --keychain-file the CLI uses Keychain.defaultURL: $XDG_DATA_HOME/strongroom/keychain here")
    func defaultLocation() async throws {
        try await withTemporaryDirectory { home in
            let data = home.appending(path: "xdg-data")
            let outcome = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keychain", "create", "--kdf", "minimum"],
                directory: home,
                environment: [
                    "HOME": home.path, "XDG_DATA_HOME": data.path, "STRONGROOM_KEYCHAIN_PASSPHRASE": "default pass",
                ]
            )
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(FileManager.default.fileExists(atPath: data.appending(path: "strongroom/keychain").path))
            #expect(!FileManager.default.fileExists(atPath: home.appending(path: ".strongroom/keychain").path))
        }
    }

    @Test(
        "--passphrase-from-secret-service unlocks the file with the desktop keyring's item",
        .enabled(if: ProcessInfo.processInfo.environment["STRONGROOM_TEST_SECRET_SERVICE"] == "1")
    )
    func passphraseFromSecretService() async throws {
        let secretTool = URL(fileURLWithPath: "/usr/bin/secret-tool")
        let item = ["service", "strongroom", "username", "keychain"]
        let stored = try await ExternalProcess.run(
            secretTool,
            arguments: ["store", "--label", "Strongroom keychain"] + item,
            input: "desktop pass"
        )
        try #require(stored.status == 0, "\(stored.output)")
        try await withTemporaryDirectory { home in
            let file = home.appending(path: "cli.keychain")
            for arguments in [["keychain", "create", "--kdf", "minimum"], ["keychain", "store", "--account", "k"]] {
                let outcome = try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: arguments + ["--keychain-file", file.path, "--passphrase-from-secret-service"],
                    directory: home,
                    environment: ["STRONGROOM_KEYCHAIN_PASSPHRASE": "ignored", "STRONGROOM_HOME": home.path],
                    input: "v-from-stdin\n"
                )
                #expect(outcome.status == 0, "\(arguments): \(outcome.output)")
            }
            let get = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keychain", "get", "--account", "k", "--keychain-file", file.path],
                directory: home,
                environment: ["STRONGROOM_KEYCHAIN_PASSPHRASE": "desktop pass", "STRONGROOM_HOME": home.path]
            )
            #expect(get.status == 0 && get.output.contains("v-from-stdin"), "\(get.output)")
            _ = try await ExternalProcess.run(secretTool, arguments: ["clear"] + item)
            let missing = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keychain", "list", "--keychain-file", file.path, "--passphrase-from-secret-service"],
                environment: ["STRONGROOM_HOME": home.path]
            )
            #expect(missing.status != 0 && missing.output.contains("no keychain passphrase in the Secret Service"))
            // A keychain file that is not there is said first: no passphrase is looked for.
            let absent = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: [
                    "keychain", "list", "--keychain-file", "/nonexistent/k", "--passphrase-from-secret-service",
                ]
            )
            #expect(absent.status == 6 && absent.output.contains("no keychain at /nonexistent/k"), "\(absent.output)")
        }
    }
}
