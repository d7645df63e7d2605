// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// "Already exists" is exit 9 everywhere (issue 73 item 8), as `--help` and docs/CLI.md promise: every command that
/// can meet an object it would create, run twice with the real binary, answers 9 the second time, in words, and
/// leaves the existing object as it was.
@Suite struct CLIExistingObjectTests {
    @Test("every command that meets an existing object exits 9 the second time")
    func existingObjects() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "exists"]) {
            server,
            _ in
            try await withTemporaryDirectory { home in
                func strongroom(_ arguments: [String], input: String? = nil) async throws -> ExternalProcess.Outcome {
                    try await ExternalProcess.run(
                        CLISessionTests.CLI.executable,
                        arguments: arguments,
                        directory: home,
                        environment: [
                            "HOME": home.path, "STRONGROOM_HOME": home.appending(path: "profiles").path,
                            "STRONGROOM_KEYCHAIN": home.appending(path: "keychain").path,
                            "STRONGROOM_KEYCHAIN_PASSPHRASE": "existing objects' passphrase",
                        ],
                        input: input
                    )
                }
                try Data("hello".utf8).write(to: home.appending(path: "in.txt"))
                let register = ["register", "--token", "exists", "--url", server.baseURL, "--profile", "p"]
                let store = ["--directory", "st", "--name", "n", "--key-file", "k"]
                // In order: each first run makes what the later ones use (the profile, the key, the file record).
                var cases: [[String]] = [
                    register,
                    ["keys", "access-key", "--output", "k"],
                    ["file", "put", "--type", "t", "in.txt", "--profile", "p"],
                    ["keychain", "create", "--kdf", "minimum"],
                    ["store", "create"] + store,
                    ["pki", "keygen", "--tag", "t"],
                    ["integrity", "manifest-key", "--output", "mk"],
                    ["protect", "--key", "assets", "in.txt", "in.protected"],
                    ["file", "encrypt", "--key-file", "k", "in.txt", "in.e3db"],
                    ["file", "get", "FILE", "got.txt", "--profile", "p"],
                ]
                var file = ""
                for index in cases.indices {
                    cases[index] = cases[index].map { $0 == "FILE" ? file : $0 }
                    let arguments = cases[index]
                    let first = try await strongroom(arguments)
                    #expect(first.status == 0, "\(arguments) the first time: \(first.output)")
                    if arguments[1] == "put" {
                        file = first.output.trimmingCharacters(in: .whitespacesAndNewlines)
                        continue  // a second upload is a second record, not an existing object
                    }
                    let second = try await strongroom(arguments)
                    #expect(second.status == 9, "\(arguments) the second time: \(second.status) \(second.output)")
                    #expect(second.output.hasPrefix("error: "), "\(arguments): one line in words: \(second.output)")
                    #expect(
                        !second.output.contains("Failure(") && !second.output.contains("Error("),
                        "\(second.output)"
                    )
                }
                // file get --overwrite replaces the existing file once the whole file has authenticated.
                try Data("old".utf8).write(to: home.appending(path: "got.txt"))
                let replaced = try await strongroom(["file", "get", file, "got.txt", "--overwrite", "--profile", "p"])
                #expect(replaced.status == 0, "\(replaced.output)")
                #expect(try String(contentsOf: home.appending(path: "got.txt"), encoding: .utf8) == "hello")
                let keychainItem = ["keychain", "store", "--account", "a"]
                #expect(try await strongroom(keychainItem, input: "s").status == 0)
                #expect(try await strongroom(keychainItem, input: "s").status == 9)
                let decrypt = ["file", "decrypt", "--key-file", "k", "in.e3db", "in.txt"]
                #expect(try await strongroom(decrypt).status == 9, "decrypting onto an existing file")
            }
        }
    }
}
