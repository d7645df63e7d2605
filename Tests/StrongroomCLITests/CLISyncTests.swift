// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Synchronization
import Testing

/// `strongroom store sync` (issue 48): two CLI homes of one client — the profile copied, as a user moves it to a new
/// device — edit offline, sync through a real server and converge, a concurrent edit kept as a conflict.
@Suite struct CLISyncTests {
    /// Two CLI homes of one client: registered in the first, the profile copied to the second (0700 folder, 0600
    /// file, as register made them), as a user moves it to a new device.
    static func twoDevices(
        in folder: URL,
        url: String
    ) async throws -> (laptop: CLISessionTests.CLI, phone: CLISessionTests.CLI) {
        var homes: [CLISessionTests.CLI] = []
        for name in ["laptop", "phone"] {
            let home = folder.appending(path: name)
            try FileManager.default.createDirectory(at: home.appending(path: "tmp"), withIntermediateDirectories: true)
            homes.append(CLISessionTests.CLI(url: url, home: home))
        }
        _ = try await homes[0].ok(["register", "--token", "tok", "--url", url])
        try FileManager.default.copyItem(
            at: homes[0].home.appending(path: "profiles"),
            to: homes[1].home.appending(path: "profiles")
        )
        return (homes[0], homes[1])
    }

    @Test("two homes converge through the server; a concurrent edit is a conflict on both; a repeat does nothing")
    func twoHomes() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            let (laptop, phone) = try await Self.twoDevices(in: folder, url: server.baseURL)
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
                try await laptop.ok(["store", "sync", "--profile", "alice"] + store).hasPrefix("pushed 1 revision")
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
                    == "up to date: nothing to push or pull"
            )
            try await laptop.fails(["store", "sync", "--push", "--pull", "--profile", "alice"] + store, status: 64)

            // A purge reaches the other home; --compact lets the server forget old generations.
            _ = try await put(laptop, #"{"title": "kept"}"#, ["--id", "kept"])
            let purged = try await laptop.ok(
                ["store", "sync", "--json", "--purge", "first", "--compact", "1", "--profile", "alice"] + store
            )
            #expect(purged.contains("\"purged\" : 3") && purged.contains("\"compacted\" : 0"), "\(purged)")
            try await laptop.fails(["store", "get", "--id", "first"] + store, status: 7)
            let heard = try await phone.ok(["store", "sync", "--profile", "alice"] + store)
            #expect(heard.contains("removed 3 revisions purged on another device"), "\(heard)")
            try await phone.fails(["store", "get", "--id", "first"] + store, status: 7)
            #expect(try await phone.ok(["store", "get", "--id", "kept"] + store).contains("kept"))
            try await laptop.fails(["store", "sync", "--compact", "0", "--profile", "alice"] + store, status: 64)
            // The transport flags every networked command takes: a pin is checked, and refused on plain HTTP.
            try await laptop.fails(["store", "sync", "--pin", "c2hvcnQ=", "--profile", "alice"] + store, status: 64)
            try await laptop.fails(
                ["store", "sync", "--pin", "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI=", "--profile", "alice"]
                    + store,
                status: 5
            )
        }
    }

    @Test("store sync --watch: two homes see each other's edits as they happen and ride out a server restart")
    func watch() async throws {
        try await withTemporaryDirectory { folder in
            let arguments = ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            let first = try await ServerProcess(arguments: arguments)
            let server = Mutex<ServerProcess?>(first)
            defer { server.withLock { $0?.stop() } }
            let (laptop, phone) = try await Self.twoDevices(in: folder, url: first.baseURL)
            let store = ["--directory", "stores", "--name", "notes", "--key-file", "local.key"]
            for cli in [laptop, phone] {
                _ = try await cli.ok(["keys", "access-key", "--output", "local.key"])
                _ = try await cli.ok(["store", "create"] + store)
            }
            // The laptop's watcher reports in JSON Lines, one object per pass that moved something.
            let lines = folder.appending(path: "laptop-watch.jsonl")
            #expect(FileManager.default.createFile(atPath: lines.path, contents: nil))
            let linesHandle = try FileHandle(forWritingTo: lines)
            let watchers = try [laptop, phone].enumerated().map { index, cli in
                let process = ChildProcess()
                process.executableURL = CLISessionTests.CLI.executable
                process.arguments = ["store", "sync", "--watch"] + store + (index == 0 ? ["--json"] : [])
                process.currentDirectoryURL = cli.home
                process.environment = ProcessInfo.processInfo.environment.merging([
                    "STRONGROOM_HOME": cli.home.appending(path: "profiles").path, "STRONGROOM_PROFILE": "alice",
                    "TMPDIR": cli.home.appending(path: "tmp").path,
                ]) { _, given in given }
                process.standardOutput = index == 0 ? linesHandle : FileHandle.nullDevice
                // What a watcher says (the server away, a failure) is kept for a failure's message.
                let log = folder.appending(path: "watcher-\(index).log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                process.standardError = try FileHandle(forWritingTo: log)
                try process.run()
                return process
            }
            defer { for watcher in watchers where watcher.isRunning { watcher.terminate() } }
            func has(_ cli: CLISessionTests.CLI, _ id: String) async throws -> Bool {
                try await cli.run(["store", "get", "--id", id] + store).status == 0
            }
            // A bound on a hang, not a speed: on a quiet machine each direction takes 4–7 s (printed below).
            func arrives(_ what: String, _ found: () async throws -> Bool) async throws -> Duration {
                do {
                    return try await eventually(what, limit: .seconds(300), found)
                } catch {
                    let logs = (0..<2).map { index in
                        let text =
                            (try? String(contentsOf: folder.appending(path: "watcher-\(index).log"), encoding: .utf8))
                        return "watcher \(index): " + String((text ?? "").suffix(2000))
                    }
                    Issue.record("watchers' logs: \(logs.joined(separator: "; "))")
                    throw error
                }
            }

            #expect(
                try await laptop.run(["store", "put", "--id", "from-laptop"] + store, input: #"{"n": 1}"#).status == 0
            )
            let there = try await arrives("the laptop's edit on the phone") {
                try await has(phone, "from-laptop")
            }
            #expect(
                try await phone.run(["store", "put", "--id", "from-phone"] + store, input: #"{"n": 2}"#).status == 0
            )
            let back = try await arrives("the phone's edit on the laptop") {
                try await has(laptop, "from-phone")
            }
            print("store sync --watch: laptop → phone in \(there), phone → laptop in \(back) (each check a process)")

            server.withLock { $0?.stop() }
            #expect(
                try await phone.run(["store", "put", "--id", "while-away"] + store, input: #"{"n": 3}"#).status == 0
            )
            let restarted = try await ServerProcess(arguments: arguments + ["--port", String(first.port)])
            server.withLock { $0 = restarted }
            _ = try await arrives("the edit made while the server was away on the laptop") {
                try await has(laptop, "while-away")
            }
            for watcher in watchers {
                #expect(watcher.isRunning, "a watcher stopped on its own")
                kill(watcher.processIdentifier, SIGINT)
                watcher.waitUntilExit()
                #expect(watcher.terminationStatus == 130)
            }
            try linesHandle.close()
            let reports = String(decoding: try Data(contentsOf: lines), as: UTF8.self).split(separator: "\n")
            #expect(reports.count >= 2, "a line for each pass that moved something: \(reports)")
            for line in reports {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["applied"] != nil, "one report object per line: \(line)")
            }
        }
    }

    @Test("store share: another client syncs the datastore, writes back; unshare makes it purge its copy (exit 8)")
    func sharedStore() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            var clis: [CLISessionTests.CLI] = []
            for name in ["owner", "member"] {
                let home = folder.appending(path: name)
                try FileManager.default.createDirectory(
                    at: home.appending(path: "tmp"),
                    withIntermediateDirectories: true
                )
                let cli = CLISessionTests.CLI(url: server.baseURL, home: home)
                _ = try await cli.ok(["register", "--token", "tok", "--url", server.baseURL])
                _ = try await cli.ok(["keys", "access-key", "--output", "local.key"])
                clis.append(cli)
            }
            let (owner, member) = (clis[0], clis[1])
            let store = ["--directory", "stores", "--name", "team", "--key-file", "local.key"]
            let whoami = try await member.ok(["whoami", "--json"])
            let memberID = try #require(
                (try JSONSerialization.jsonObject(with: Data(whoami.utf8)) as? [String: Any])?["client_id"] as? String
            )
            for cli in [owner, member] { _ = try await cli.ok(["store", "create"] + store) }
            _ = try await owner.run(["store", "put", "--id", "plan"] + store, input: #"{"step": 1}"#)
            _ = try await owner.ok(["store", "sync"] + store)
            let shared = try await owner.ok(["store", "share", "--with", memberID] + store)
            let address = try #require(
                shared.split(separator: " ").firstIndex(of: "--shared").map {
                    String(shared.split(separator: " ")[$0 + 1])
                },
                "\(shared)"
            )
            try await owner.fails(["store", "share", "--with", "not-a-uuid"] + store, status: 64)
            try await member.fails(["store", "sync", "--shared", "nonsense"] + store, status: 64)
            let joined = try await member.ok(["store", "sync", "--shared", address] + store)
            #expect(joined.contains("pulled 1 new revision"), "\(joined)")
            #expect(try await member.ok(["store", "get", "--id", "plan"] + store).contains("step"))
            // Remembered: later syncs need no --shared.
            _ = try await member.run(["store", "put", "--id", "reply"] + store, input: #"{"from": "member"}"#)
            #expect(try await member.ok(["store", "sync"] + store).hasPrefix("pushed 1 revision"))
            #expect(try await owner.ok(["store", "sync"] + store).contains("pulled 1 new revision"))
            #expect(try await owner.ok(["store", "get", "--id", "reply"] + store).contains("member"))
            let members = try await owner.ok(["store", "members", "--json"] + store)
            #expect(members.contains(memberID) && members.contains("readWrite"), "\(members)")

            // One channel shared read-only: the member's copy of it holds its documents only.
            _ = try await owner.run(["store", "put", "--id", "memo"] + store, input: #"{"kind": "public"}"#)
            let channel = ["--channel", "public", "--selector", #"{"kind": "public"}"#]
            #expect(try await owner.ok(["store", "sync"] + channel + store).hasPrefix("pushed 1 revision"))
            let channelShare = try await owner.ok(
                ["store", "share", "--with", memberID, "--read-only"] + channel + store
            )
            let channelAddress = try #require(
                channelShare.split(separator: " ").firstIndex(of: "--shared").map {
                    String(channelShare.split(separator: " ")[$0 + 1])
                }
            )
            #expect(channelAddress != address)
            let copy = ["--directory", "stores", "--name", "public-copy", "--key-file", "local.key"]
            _ = try await member.ok(["store", "create"] + copy)
            let channelled = try await member.ok(["store", "sync", "--shared", channelAddress] + copy)
            #expect(channelled.contains("pulled 1 new revision"), "\(channelled)")
            #expect(try await member.ok(["store", "get", "--id", "memo"] + copy).contains("public"))
            try await member.fails(["store", "get", "--id", "plan"] + copy, status: 7)
            // A read-only member's edit is refused at push (exit 8) and stays, until --discard-local drops it.
            #expect(
                try await member.run(["store", "put", "--id", "aside"] + copy, input: #"{"kind": "mine"}"#).status == 0
            )
            let refused = try await member.run(["store", "sync"] + copy)
            #expect(refused.status == 8 && refused.output.contains("--discard-local"), "\(refused.output)")
            #expect(try await member.ok(["store", "get", "--id", "aside"] + copy).contains("mine"))
            #expect(
                try await member.ok(["store", "sync", "--discard-local"] + copy)
                    .hasPrefix("discarded 1 local revisions")
            )
            try await member.fails(["store", "get", "--id", "aside"] + copy, status: 7)
            try await owner.fails(["store", "sync", "--selector", "{}"] + store, status: 64)
            try await owner.fails(["store", "sync", "--channel", "x"] + store, status: 64)

            _ = try await owner.ok(["store", "unshare", "--with", memberID] + store)
            try await member.fails(["store", "sync"] + store, status: 8)
            try await member.fails(["store", "get", "--id", "plan"] + store, status: 7)
            #expect(try await owner.ok(["store", "members"] + store) == "none")
        }
    }

    @Test(
        "a sync killed at seeded points, pulling and pushing, resumes: the re-run completes, nothing is lost or twice"
    )
    func killedMidSync() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            let (laptop, phone) = try await Self.twoDevices(in: folder, url: server.baseURL)
            for cli in [laptop, phone] { _ = try await cli.ok(["keys", "access-key", "--output", "local.key"]) }
            let documents = 450  // three pages of 200 each way
            func store(_ name: String) -> [String] {
                ["--directory", "stores", "--name", name, "--key-file", "local.key"]
            }
            func fill(_ cli: CLISessionTests.CLI, _ name: String) async throws {
                _ = try await cli.ok(["store", "create"] + store(name))
                let lines = (0..<documents).map { "{\"_id\":\"doc-\($0)\",\"n\":\($0)}\n" }.joined()
                let outcome = try await cli.run(["store", "import"] + store(name), input: lines)
                try #require(outcome.status == 0, "\(outcome.output)")
            }
            func count(_ cli: CLISessionTests.CLI, _ name: String) async throws -> Int {
                try await cli.ok(["store", "list"] + store(name)).split(separator: "\n").count
            }
            func shim(_ crashAt: Int?, countFile: URL? = nil) async throws -> [String: String] {
                CrashPoints.environment(
                    library: try await CrashPoints.library(),
                    crashAt: crashAt,
                    countFile: countFile
                )
            }
            let settled = "up to date: nothing to push or pull"

            // Pulling: the phone's datastore is put back to its state before the pull for every point.
            try await fill(laptop, "notes")
            _ = try await laptop.ok(["store", "sync", "--push", "--profile", "alice"] + store("notes"))
            _ = try await phone.ok(["store", "create"] + store("notes"))
            let stores = phone.home.appending(path: "stores")
            let snapshot = phone.home.appending(path: "stores-before-pull")
            try FileManager.default.copyItem(at: stores, to: snapshot)
            let pullCount = folder.appending(path: "pull-operations")
            let counted = try await phone.run(
                ["store", "sync", "--pull", "--profile", "alice"] + store("notes"),
                environment: try await shim(nil, countFile: pullCount)
            )
            try #require(counted.status == 0, "\(counted.output)")
            let pullTotal = try CrashPoints.count(in: pullCount)
            for point in CrashPoints.points(total: pullTotal, workload: "store sync --pull") {
                let crash = CrashPoints.describe(workload: "store sync --pull", point: point, total: pullTotal)
                try FileManager.default.removeItem(at: stores)
                try FileManager.default.copyItem(at: snapshot, to: stores)
                let killed = try await phone.run(
                    ["store", "sync", "--pull", "--profile", "alice"] + store("notes"),
                    environment: try await shim(point)
                )
                #expect(killed.signalled || killed.status == 0, "\(crash): \(killed.output)")
                print("crash points: \(crash): \(killed.signalled ? "killed" : "finished first")")
                _ = try await phone.ok(["store", "sync", "--pull", "--profile", "alice"] + store("notes"))
                #expect(try await count(phone, "notes") == documents, "\(crash)")
                #expect(
                    try await phone.ok(["store", "sync", "--profile", "alice"] + store("notes")) == settled,
                    "\(crash)"
                )
            }

            // Pushing: each point pushes a datastore of its own name, so the server starts empty for it each time.
            let pushCount = folder.appending(path: "push-operations")
            try await fill(phone, "push-count")
            let pushed = try await phone.run(
                ["store", "sync", "--push", "--profile", "alice"] + store("push-count"),
                environment: try await shim(nil, countFile: pushCount)
            )
            try #require(pushed.status == 0, "\(pushed.output)")
            let pushTotal = try CrashPoints.count(in: pushCount)
            for point in CrashPoints.points(total: pushTotal, workload: "store sync --push") {
                let crash = CrashPoints.describe(workload: "store sync --push", point: point, total: pushTotal)
                let name = "push-\(point)"
                try await fill(phone, name)
                let killed = try await phone.run(
                    ["store", "sync", "--push", "--profile", "alice"] + store(name),
                    environment: try await shim(point)
                )
                #expect(killed.signalled || killed.status == 0, "\(crash): \(killed.output)")
                print("crash points: \(crash): \(killed.signalled ? "killed" : "finished first")")
                _ = try await phone.ok(["store", "sync", "--push", "--profile", "alice"] + store(name))
                _ = try await laptop.ok(["store", "create"] + store(name))
                let pulled = try await laptop.ok(
                    ["store", "sync", "--pull", "--json", "--profile", "alice"] + store(name)
                )
                #expect(pulled.contains("\"pulled\" : \(documents)"), "\(crash): each revision stored once: \(pulled)")
                #expect(try await count(laptop, name) == documents, "\(crash)")
                // The phone reads its own revisions back once (none new), then has nothing to do.
                #expect(
                    try await phone.ok(["store", "sync", "--profile", "alice"] + store(name))
                        == "pulled 0 new revisions (\(documents) already here)",
                    "\(crash)"
                )
                #expect(
                    try await phone.ok(["store", "sync", "--profile", "alice"] + store(name)) == settled,
                    "\(crash)"
                )
            }
        }
    }
}
