// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom-server token create|list|revoke`, run as the real executable.
@Suite struct AdministrationTests {
    func server(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
        try await ExternalProcess.run(ServerProcess.executable, arguments: arguments)
    }

    /// Runs the `strongroom` CLI built beside the tests in `directory` (profiles in `directory/profiles`); its
    /// trimmed output, requiring success.
    func cli(_ arguments: [String], in directory: URL) async throws -> String {
        let outcome = try await ExternalProcess.run(
            ServerProcess.executable.deletingLastPathComponent().appending(path: "strongroom"),
            arguments: arguments,
            directory: directory,
            environment: ["STRONGROOM_HOME": directory.appending(path: "profiles").path]
        )
        try #require(outcome.status == 0, "strongroom \(arguments): \(outcome.output)")
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("tokens are created, listed with their uses, and revoked", arguments: TestEngine.available)
    func tokens(engine: TestEngine) async throws {
        try await withTemporaryDirectory { directory in
            func run(_ databaseURL: String?) async throws {
                let data = ["--data-directory", directory.path] + (databaseURL.map { ["--database-url", $0] } ?? [])
                let created = try await server(["token", "create", "--name", "ops", "--maximum-uses", "3"] + data)
                #expect(created.status == 0, "\(created.output)")
                let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(token.count == 64)
                let listed = try await server(["token", "list"] + data)
                #expect(listed.output.hasPrefix("TOKEN") && listed.output.contains(token), "\(listed.output)")
                let json = try await server(["token", "list", "--json"] + data)
                let entries = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
                #expect(entries?.first?["token"] as? String == token && entries?.first?["maximum_uses"] as? Int == 3)
                #expect(entries?.first?["name"] as? String == "ops" && entries?.first?["enabled"] as? Bool == true)
                #expect(try await server(["token", "revoke", token] + data).status == 0)
                #expect(try await server(["token", "list"] + data).output.contains("revoked"))
                let unknown = try await server(["token", "revoke", "nope"] + data)
                #expect(unknown.status != 0)
            }
            switch engine {
            case .sqlite: try await run(nil)
            case .postgres: try await TestDatabase.withPostgres { try await run($0) }
            }
        }
    }

    @Test("read-only commands on a folder with no database fail and create nothing")
    func readingNeverCreates() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.appending(path: "strongroom-data")
            for command in [
                ["token", "list"], ["token", "revoke", "x"], ["ca", "list"], ["integrity", "list"],
                ["blobs", "sweep"],
            ] {
                let outcome = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: command + ["--data-directory", missing.path]
                )
                #expect(outcome.status != 0, "\(command): \(outcome.output)")
                #expect(
                    outcome.output.contains("no Strongroom database") || outcome.output.contains("holds no CA"),
                    "\(command): \(outcome.output)"
                )
                #expect(!FileManager.default.fileExists(atPath: missing.path), "\(command) created the data directory")
            }
            // Run with no --data-directory in a folder: the default ./strongroom-data is not made either.
            let defaulted = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["token", "list"],
                directory: directory
            )
            #expect(defaulted.status != 0)
            #expect(!FileManager.default.fileExists(atPath: missing.path), "token list created ./strongroom-data")
        }
    }

    @Test("a backup taken while the server writes restores into a new data directory that serves the same records")
    func backupAndRestore() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory.appending(path: "data").path
            let backup = directory.appending(path: "backup").path
            let restored = directory.appending(path: "restored").path
            func strongroom(_ arguments: [String]) async throws -> String {
                try await cli(arguments, in: directory)
            }
            let plain = directory.appending(path: "report.bin")
            try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: plain)
            var recordID = ""
            var fileID = ""
            do {
                let running = try await ServerProcess(arguments: ["--data-directory", data])
                defer { running.stop() }
                let token = try await server(["token", "create", "--name", "backup", "--data-directory", data])
                try #require(token.status == 0, "\(token.output)")
                let registration = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
                _ = try await strongroom(["register", "--token", registration, "--url", running.baseURL])
                recordID = try await strongroom(["write", "--type", "note", "body=kept by the backup"])
                fileID = try await strongroom(["file", "put", "--type", "report", plain.path])
                // The server's TLS identity goes with the backup: a restore must not need a new server CA.
                let tls = try await server(["tls", "init", "--data-directory", data, "--host", "localhost"])
                try #require(tls.status == 0, "\(tls.output)")
                // What would be created exists already: exit 9, as with the client CLI.
                let tlsAgain = try await server(["tls", "init", "--data-directory", data, "--host", "localhost"])
                #expect(tlsAgain.status == 9 && tlsAgain.output.contains("--renew"), "\(tlsAgain.output)")
                let ca = try await server(["ca", "init", "--data-directory", data])
                try #require(ca.status == 0, "\(ca.output)")
                let caAgain = try await server(["ca", "init", "--data-directory", data])
                #expect(caAgain.status == 9 && caAgain.output.contains("already holds a CA"), "\(caAgain.output)")
                // Taken while the server runs, with a write in flight beside it.
                async let writing = strongroom(["write", "--type", "note", "body=written during the backup"])
                let taken = try await server(["backup", "--data-directory", data, "--output", backup])
                #expect(taken.status == 0, "\(taken.output)")
                // (The test server's token key comes from its environment, so there is no token.key to copy.)
                #expect(taken.output.contains("1 file bodies"), "\(taken.output)")
                #expect(taken.output.contains("TLS identity"), "\(taken.output)")
                _ = try await writing
                let again = try await server(["backup", "--data-directory", data, "--output", backup])
                #expect(again.status == 9 && again.output.contains("exists already"), "\(again.output)")
            }
            let restoring = try await server(["restore", "--input", backup, "--data-directory", restored])
            #expect(restoring.status == 0, "\(restoring.output)")
            let refused = try await server(["restore", "--input", backup, "--data-directory", restored])
            #expect(refused.status == 9 && refused.output.contains("holds files already"), "\(refused.output)")
            let mode = try FileManager.default.attributesOfItem(atPath: restored + "/strongroom.sqlite")[
                .posixPermissions
            ]
            #expect((mode as? Int) == 0o600)
            for file in ["server-chain.pem", "server-key.pem", "server-ca-chain.pem", "server-ca-key.pem"] {
                #expect(
                    FileManager.default.contents(atPath: restored + "/tls/" + file)
                        == FileManager.default.contents(atPath: data + "/tls/" + file),
                    "tls/\(file) restored as it was"
                )
            }
            let serving = try await ServerProcess(arguments: ["--data-directory", restored])
            defer { serving.stop() }
            // The profile now points at the restored server.
            let profile = directory.appending(path: "profiles/default/e3db.json")
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: profile)) as? [String: Any])
            json["api_url"] = serving.baseURL
            try JSONSerialization.data(withJSONObject: json).write(to: profile)
            #expect(try await strongroom(["read", recordID]).contains("kept by the backup"))
            let copy = directory.appending(path: "copy.bin")
            _ = try await strongroom(["file", "get", fileID, copy.path])
            #expect(try Data(contentsOf: copy) == Data(contentsOf: plain))
        }
    }

    @Test("backup and restore refuse links and other non-files: an outside file keeps its mode and is never copied")
    func restoreRefusesLinks() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory.appending(path: "data").path
            let backup = directory.appending(path: "backup").path
            do {
                let running = try await ServerProcess(arguments: ["--data-directory", data])
                running.stop()
            }
            let taken = try await server(["backup", "--data-directory", data, "--output", backup])
            try #require(taken.status == 0, "\(taken.output)")
            // A file outside the backup, readable by all, and links to it where the backup keeps files.
            let outside = directory.appending(path: "host-secret").path
            try Data("host file".utf8).write(to: URL(fileURLWithPath: outside))
            #expect(chmod(outside, 0o644) == 0)
            try FileManager.default.createDirectory(atPath: backup + "/blobs", withIntermediateDirectories: true)
            let planted = [backup + "/blobs/0123456789abcdef", backup + "/token.key"]
            for (position, link) in planted.enumerated() {
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)
                let restored = directory.appending(path: "restored-\(position)").path
                let outcome = try await server(["restore", "--input", backup, "--data-directory", restored])
                #expect(outcome.status != 0, "\(outcome.output)")
                #expect(outcome.output.contains("symbolic link"), "\(outcome.output)")
                #expect(!FileManager.default.fileExists(atPath: restored), "nothing restored")
                #expect(!FileManager.default.fileExists(atPath: restored + ".partial"), "nothing left behind")
                try FileManager.default.removeItem(atPath: link)
            }
            // A link in place of the database, and a folder that is a link, are refused the same way.
            try FileManager.default.moveItem(atPath: backup + "/strongroom.sqlite", toPath: directory.path + "/db")
            try FileManager.default.createSymbolicLink(
                atPath: backup + "/strongroom.sqlite",
                withDestinationPath: directory.path + "/db"
            )
            let database = try await server(["restore", "--input", backup, "--data-directory", data + "-db"])
            #expect(database.status != 0 && database.output.contains("symbolic link"), "\(database.output)")
            try FileManager.default.removeItem(atPath: backup + "/strongroom.sqlite")
            try FileManager.default.moveItem(atPath: directory.path + "/db", toPath: backup + "/strongroom.sqlite")
            try FileManager.default.removeItem(atPath: backup + "/blobs")
            try FileManager.default.createSymbolicLink(atPath: backup + "/blobs", withDestinationPath: directory.path)
            let folder = try await server(["restore", "--input", backup, "--data-directory", data + "-folder"])
            #expect(folder.status != 0 && folder.output.contains("symbolic link"), "\(folder.output)")
            let mode = try FileManager.default.attributesOfItem(atPath: outside)[.posixPermissions] as? Int
            #expect(mode == 0o644, "the outside file's mode is untouched")
            // A backup of a data directory whose blob folder holds a link is refused too.
            try FileManager.default.removeItem(atPath: backup + "/blobs")
            try FileManager.default.createDirectory(atPath: data + "/blobs", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: data + "/blobs/feed", withDestinationPath: outside)
            let linked = try await server(["backup", "--data-directory", data, "--output", backup + "-2"])
            #expect(linked.status != 0 && linked.output.contains("symbolic link"), "\(linked.output)")
            #expect(!FileManager.default.fileExists(atPath: backup + "-2"))
        }
    }

    @Test(
        "the key log's append probe refuses a PostgreSQL database that holds clients: its made-up leaves could never be removed",
        .enabled(if: TestEngine.available.contains(.postgres))
    )
    func keyLogSpeedRefusesDeployments() async throws {
        try await ServerProcess.withServer(engine: .postgres, arguments: ["--registration-token", "speed"]) {
            server,
            storage in
            _ = try await HTTP(base: server.baseURL).register(token: "speed")
            let url = try #require(storage.firstIndex(of: "--database-url").map { storage[$0 + 1] })
            // The probe (Benchmarks/KeyLogSpeed) is built beside the server.
            let probe = ServerProcess.executable.deletingLastPathComponent().appending(path: "StrongroomKeyLogSpeed")
            let refused = try await ExternalProcess.run(probe, arguments: ["--database-url", url, "--events", "10"])
            #expect(refused.status != 0 && !refused.output.contains("Usage:"), "\(refused.output)")
            #expect(
                refused.output.contains(" clients and ") && refused.output.contains("empty scratch database"),
                "\(refused.output)"
            )
        }
    }

    @Test("pg_dump of a PostgreSQL deployment restores into a fresh database that serves the same records and files")
    func postgresDumpAndRestore() async throws {
        guard TestEngine.available.contains(.postgres) else { return }
        try await withTemporaryDirectory { directory in
            func strongroom(_ arguments: [String]) async throws -> String {
                try await cli(arguments, in: directory)
            }
            func tool(_ name: String, _ arguments: [String]) async throws {
                let outcome = try await ExternalProcess.run(
                    URL(fileURLWithPath: "/usr/bin/\(name)"),
                    arguments: arguments
                )
                try #require(outcome.status == 0, "\(name): \(outcome.output)")
            }
            let plain = directory.appending(path: "report.bin")
            try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: plain)
            let dump = directory.appending(path: "strongroom.dump").path
            try await TestDatabase.withPostgres { original in
                try await TestDatabase.withPostgres { fresh in
                    var recordID = ""
                    var fileID = ""
                    do {
                        let running = try await ServerProcess(
                            arguments: [
                                "--data-directory", directory.appending(path: "a").path, "--database-url", original,
                                "--registration-token", "pg-dump-registration-token-of-32-characters",
                            ]
                        )
                        defer { running.stop() }
                        _ = try await strongroom([
                            "register", "--token", "pg-dump-registration-token-of-32-characters", "--url",
                            running.baseURL,
                        ])
                        recordID = try await strongroom(["write", "--type", "note", "body=kept by pg_dump"])
                        fileID = try await strongroom(["file", "put", "--type", "report", plain.path])
                        // The guide's recipe, while the server runs.
                        try await tool("pg_dump", ["--format=custom", "--file", dump, original])
                    }
                    try await tool("pg_restore", ["--clean", "--if-exists", "--no-owner", "--dbname", fresh, dump])
                    let serving = try await ServerProcess(
                        arguments: ["--data-directory", directory.appending(path: "b").path, "--database-url", fresh]
                    )
                    defer { serving.stop() }
                    _ = try await strongroom(["profile", "set-url", serving.baseURL])
                    #expect(try await strongroom(["read", recordID]).contains("kept by pg_dump"))
                    let copy = directory.appending(path: "copy.bin")
                    _ = try await strongroom(["file", "get", fileID, copy.path])
                    #expect(try Data(contentsOf: copy) == Data(contentsOf: plain))
                }
            }
        }
    }
}
