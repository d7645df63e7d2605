// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom store sync` (issue 48): two CLI homes of one client — the profile copied, as a user moves it to a new
/// device — edit offline, sync through a real server and converge, a concurrent edit kept as a conflict.
@Suite struct CLISyncTests {
    @Test("two homes converge through the server; a concurrent edit is a conflict on both; a repeat does nothing")
    func twoHomes() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            let laptopHome = folder.appending(path: "laptop")
            let phoneHome = folder.appending(path: "phone")
            for home in [laptopHome, phoneHome] {
                try FileManager.default.createDirectory(
                    at: home.appending(path: "tmp"),
                    withIntermediateDirectories: true
                )
            }
            let laptop = CLISessionTests.CLI(url: server.baseURL, home: laptopHome)
            let phone = CLISessionTests.CLI(url: server.baseURL, home: phoneHome)
            _ = try await laptop.ok(["register", "--token", "tok", "--url", server.baseURL])
            // The new device gets the profile by copy (0700 folder, 0600 file, as register made them).
            try FileManager.default.copyItem(
                at: laptopHome.appending(path: "profiles"),
                to: phoneHome.appending(path: "profiles")
            )
            let store = ["--directory", "stores", "--name", "notes", "--key-file", "local.key"]
            for cli in [laptop, phone] {
                _ = try await cli.ok(["keys", "access-key", "--output", "local.key"])
                _ = try await cli.ok(["store", "create"] + store)
            }
            func put(_ cli: CLISessionTests.CLI, _ body: String, _ extra: [String]) async throws -> String {
                let outcome = try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: ["store", "put"] + store + extra,
                    directory: cli.home,
                    environment: [
                        "STRONGROOM_HOME": cli.home.appending(path: "profiles").path, "STRONGROOM_PROFILE": "alice",
                    ],
                    input: body
                )
                try #require(outcome.status == 0, "\(outcome.output)")
                return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let created = try await put(laptop, #"{"title": "laptop"}"#, ["--id", "first"])
            let revision = try #require(created.split(separator: " ").last.map(String.init))
            #expect(
                try await laptop.ok(["store", "sync", "--profile", "alice"] + store).hasPrefix("pushed 1 revisions")
            )
            let pulled = try await phone.ok(["store", "sync", "--json", "--profile", "alice"] + store)
            #expect(pulled.contains("\"applied\" : 1"), "\(pulled)")
            #expect(try await phone.ok(["store", "get", "--id", "first"] + store).contains("laptop"))

            // Both edit the same revision apart; after syncing both ways, both show the conflict.
            _ = try await put(laptop, #"{"title": "laptop again"}"#, ["--id", "first", "--rev", revision])
            _ = try await put(phone, #"{"title": "phone"}"#, ["--id", "first", "--rev", revision])
            for cli in [laptop, phone, laptop] {
                _ = try await cli.ok(["store", "sync", "--profile", "alice"] + store)
            }
            for cli in [laptop, phone] {
                let conflicts = try await cli.ok(["store", "conflicts", "--json"] + store)
                #expect(conflicts.contains("\"id\" : \"first\""), "\(conflicts)")
            }
            #expect(
                try await laptop.ok(["store", "get", "--id", "first"] + store)
                    == (try await phone.ok(["store", "get", "--id", "first"] + store))
            )
            #expect(
                try await phone.ok(["store", "sync", "--profile", "alice"] + store)
                    == "pushed 0 revisions; pulled 0, 0 new"
            )
            try await laptop.fails(["store", "sync", "--push", "--pull", "--profile", "alice"] + store, status: 64)
        }
    }
}
