// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `strongroom agent` (issue 53 item 17): the keychain unlocked once for a session of commands, on a user-only
/// socket, wiped by `agent stop`, ended by its idle timeout or by its socket's removal, and unmoved by hostile peers.
@Suite struct CLIAgentTests {
    /// A home with a keychain (one item) and a runner whose commands get no passphrase unless asked to.
    struct Setup {
        let home: URL
        var socket: String { home.appending(path: "profiles/agent.sock").path }

        func run(_ arguments: [String], passphrase: Bool = false) async throws -> ExternalProcess.Outcome {
            try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: arguments + ["--keychain-file", "kc"]
                    + (passphrase ? ["--passphrase-file", "kc.pass"] : []),
                directory: home,
                environment: ["STRONGROOM_HOME": home.appending(path: "profiles").path]
            )
        }

        func ok(_ arguments: [String], passphrase: Bool = false) async throws -> String {
            let outcome = try await run(arguments, passphrase: passphrase)
            try #require(outcome.status == 0, "strongroom \(arguments.joined(separator: " ")): \(outcome.output)")
            return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Runs `strongroom agent <arguments>` (no keychain options: stop and status take none).
        func agent(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
            try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["agent"] + arguments,
                directory: home,
                environment: ["STRONGROOM_HOME": home.appending(path: "profiles").path]
            )
        }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        try await withTemporaryDirectory { home in
            let setup = Setup(home: home)
            try Data("agent pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            _ = try await setup.ok(["keychain", "create", "--kdf", "minimum"], passphrase: true)
            _ = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: [
                    "keychain", "store", "--account", "token", "--keychain-file", "kc", "--passphrase-file", "kc.pass",
                ],
                directory: home,
                environment: ["STRONGROOM_HOME": home.appending(path: "profiles").path],
                input: "s3cret\n"
            )
            do {
                try await body(setup)
            } catch {
                _ = try? await setup.agent(["stop"])
                throw error
            }
            _ = try? await setup.agent(["stop"])
        }
    }

    @Test("start once, then commands open the keychain with no passphrase; stop wipes; a second start is refused")
    func session() async throws {
        try await withSetup { setup in
            // Without the agent: no passphrase, no keychain.
            #expect(try await setup.run(["keychain", "get", "--account", "token"]).status == 64)
            let started = try await setup.ok(["agent", "start", "--idle-timeout", "10m"], passphrase: true)
            #expect(started.contains("agent started") && started.contains("10 minutes"), "\(started)")
            // The socket: a socket file, mode 0600, in a folder only its owner can write.
            var information = stat()
            #expect(lstat(setup.socket, &information) == 0)
            #expect(information.st_mode & S_IFMT == S_IFSOCK && information.st_mode & 0o777 == 0o600)
            #expect(stat(setup.home.appending(path: "profiles").path, &information) == 0)
            #expect(information.st_mode & 0o077 == 0)

            #expect(try await setup.ok(["keychain", "get", "--account", "token"]) == "s3cret")
            // A datastore whose key the keychain keeps: no password, no passphrase, while the agent runs.
            let store = ["--directory", "stores", "--name", "notes", "--keychain-key"]
            try FileManager.default.createDirectory(
                at: setup.home.appending(path: "stores"),
                withIntermediateDirectories: true
            )
            _ = try await setup.ok(["store", "create"] + store)
            let put = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put", "--id", "d1", "--keychain-file", "kc"] + store,
                directory: setup.home,
                environment: ["STRONGROOM_HOME": setup.home.appending(path: "profiles").path],
                input: #"{"title":"agent"}"#
            )
            #expect(put.status == 0, "\(put.output)")
            #expect(try await setup.ok(["store", "get", "--id", "d1"] + store).contains("agent"))
            let listed = try await setup.ok(["store", "list", "--json"] + store)
            #expect(listed.hasPrefix("[") && listed.contains("\"id\" : \"d1\""), "\(listed)")

            let status = try await setup.agent(["status", "--json"])
            #expect(
                status.status == 0 && status.output.contains(setup.home.appending(path: "kc").path),
                "\(status.output)"
            )
            let again = try await setup.run(["agent", "start"], passphrase: true)
            #expect(again.status == 9 && again.output.contains("running already"), "\(again.output)")

            let stopped = try await setup.agent(["stop"])
            #expect(stopped.status == 0 && stopped.output.contains("wiped"), "\(stopped.output)")
            #expect(!FileManager.default.fileExists(atPath: setup.socket))
            #expect(try await setup.run(["keychain", "get", "--account", "token"]).status == 64)
            #expect(try await setup.agent(["status"]).status == 7)
            let none = try await setup.agent(["stop"])
            #expect(none.status == 0 && none.output.contains("no agent is running"), "\(none.output)")
            // With the passphrase, everything works as before.
            #expect(try await setup.ok(["keychain", "get", "--account", "token"], passphrase: true) == "s3cret")
        }
    }

    @Test("status of an agent holding a keychain whose path nears PATH_MAX answers (its path left out), no crash")
    func statusOfLongPath() async throws {
        try await withSetup { setup in
            // A keychain at a path of about 4,030 bytes (its temporary files need a little more): its status answer would pass the 4,096-byte frame.
            var folder = setup.home.path
            while folder.utf8.count + 251 + 3 < 4_030 {
                folder += "/" + String(repeating: "k", count: 250)
            }
            folder += "/" + String(repeating: "k", count: max(1, 4_030 - folder.utf8.count - 1))
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let keychain = folder + "/kc"
            let environment = ["STRONGROOM_HOME": setup.home.appending(path: "profiles").path]
            func strongroom(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
                try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: arguments + ["--keychain-file", keychain, "--passphrase-file", "kc.pass"],
                    directory: setup.home,
                    environment: environment
                )
            }
            let created = try await strongroom(["keychain", "create", "--kdf", "minimum"])
            try #require(created.status == 0, "\(created.output)")
            let started = try await strongroom(["agent", "start", "--idle-timeout", "10m"])
            try #require(started.status == 0, "\(started.output)")
            for _ in 0..<3 {
                let status = try await setup.agent(["status"])
                #expect(status.status == 0, "\(status.output)")
                #expect(status.output.contains("1 more keychain whose paths are too long"), "\(status.output)")
            }
            let json = try await setup.agent(["status", "--json"])
            #expect(json.status == 0 && json.output.contains("\"keychains_not_listed\" : 1"), "\(json.output)")
            let stopped = try await setup.agent(["stop"])
            #expect(
                stopped.status == 0 && stopped.output.contains("wiped"),
                "the agent is still running: \(stopped.output)"
            )
        }
    }

    // The agent turns off dumps and tracing (PR_SET_DUMPABLE 0), so only root may read its memory.
    @Test(
        "the agent keeps the keychain's data key sealed: no plaintext copy in its memory, after answering too",
        .enabled(if: geteuid() == 0, "reading the agent's memory needs root")
    )
    func keySealedInMemory() async throws {
        try await withSetup { setup in
            let keychain = try EncryptedFileBackend.open(at: setup.home.appending(path: "kc"))
            let dataKey = try keychain.unlockKey(passphrase: "agent pass").dataKey.withUnsafeBytes { Array($0) }
            _ = try await setup.ok(["agent", "start", "--idle-timeout", "10m"], passphrase: true)
            // The agent has opened the key to answer a request, and wiped it again.
            #expect(try await setup.ok(["keychain", "get", "--account", "token"]) == "s3cret")
            let status = try await setup.agent(["status", "--json"])
            let fields = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
            let pid = try #require(fields?["pid"] as? Int, "\(status.output)")
            #expect(try ProcessMemory.occurrences(of: dataKey, inProcess: Int32(pid)) == 0)
            // The search finds what is there: the keychain's path, which the agent keeps in plaintext.
            let path = Array(setup.home.appending(path: "kc").path.utf8)
            #expect(try ProcessMemory.occurrences(of: path, inProcess: Int32(pid)) > 0)
        }
    }

    @Test("the idle timeout ends the agent and removes its socket; so does removing the socket file")
    func endings() async throws {
        try await withSetup { setup in
            _ = try await setup.ok(["agent", "start", "--idle-timeout", "1s"], passphrase: true)
            // Hang guard only: the agent must end on its own, however slow the machine is.
            var ended = false
            for _ in 0..<600 where !ended {
                try await Task.sleep(for: .milliseconds(200))
                ended =
                    try await setup.agent(["status"]).status == 7
                    && !FileManager.default.fileExists(atPath: setup.socket)
            }
            #expect(ended, "the agent outlived its idle timeout")
            #expect(try await setup.run(["keychain", "get", "--account", "token"]).status == 64)

            _ = try await setup.ok(["agent", "start"], passphrase: true)
            let status = try await setup.agent(["status", "--json"])
            let pid = try #require(
                (try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])?["pid"] as? Int
            )
            try FileManager.default.removeItem(atPath: setup.socket)
            var gone = false
            for _ in 0..<600 where !gone {
                try await Task.sleep(for: .milliseconds(200))
                gone = kill(pid_t(pid), 0) != 0
            }
            #expect(gone, "the agent outlived its socket file")
        }
    }

    @Test("hostile peers: bad magic, oversized lengths, unknown keychains and stalled connections change nothing")
    func hostilePeers() async throws {
        try await withSetup { setup in
            _ = try await setup.ok(["agent", "start"], passphrase: true)
            // Wrong magic, an unknown operation, a length over the limit: a "bad request" status byte, nothing else.
            for request in [
                Array("XXXX".utf8) + [1, 0, 0], Array("SRA1".utf8) + [9, 0, 0], Array("SRA1".utf8) + [1, 0xFF, 0xFF],
            ] {
                #expect(try Self.exchange(setup.socket, request) == [2, 0, 0], "\(request)")
            }
            // A keychain the agent does not hold: "unknown", no key.
            let unknown = Array("SRA1".utf8) + [1, 0, 4] + Array("nope".utf8)
            #expect(try Self.exchange(setup.socket, unknown) == [1, 0, 0])
            // Connections that never speak and stay open, more than the agent serves at once: each is dropped after
            // the agent's read timeout, so it serves again while they are still open.
            var silent: [Int32] = []
            for _ in 0..<24 { silent.append(try Self.connect(setup.socket)) }
            defer { for descriptor in silent { close(descriptor) } }
            var served = false
            for _ in 0..<300 where !served {
                served = try await setup.run(["keychain", "get", "--account", "token"]).status == 0
                if !served { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(served, "the agent stopped serving after stalled connections")
            #expect(try await setup.agent(["status"]).status == 0)
        }
    }

    @Test("refusals in words: a shared folder, an over-long socket path, the Secret Service, a bad idle timeout")
    func refusals() async throws {
        try await withSetup { setup in
            let shared = setup.home.appending(path: "shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            chmod(shared.path, 0o777)
            let environment = ["STRONGROOM_AGENT_SOCKET": shared.appending(path: "agent.sock").path]
            let open = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["agent", "start", "--keychain-file", "kc", "--passphrase-file", "kc.pass"],
                directory: setup.home,
                environment: environment
            )
            #expect(open.status == 8 && open.output.contains("writable by you alone"), "\(open.output)")
            let long = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["agent", "start", "--keychain-file", "kc", "--passphrase-file", "kc.pass"],
                directory: setup.home,
                environment: ["STRONGROOM_AGENT_SOCKET": "/tmp/" + String(repeating: "x", count: 120)]
            )
            #expect(long.status == 64 && long.output.contains("shorter"), "\(long.output)")
            let secretService = try await setup.run(["agent", "start", "--backend", "secret-service"])
            #expect(
                secretService.status == 64 && secretService.output.contains("Secret Service"),
                "\(secretService.output)"
            )
            for timeout in ["0", "8d", "5x", "soon", "99999999999", "9223372036854775807s"] {
                let outcome = try await setup.run(["agent", "start", "--idle-timeout", timeout], passphrase: true)
                #expect(outcome.status == 64 && outcome.output.contains("1s to 7d"), "\(timeout): \(outcome.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: setup.socket), "no agent was left running")
        }
    }

    // MARK: Raw socket

    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(result == 0, "connect: \(errno)")
        return descriptor
    }

    /// Sends `request` and reads the answer until the agent closes the connection (at most 64 bytes).
    static func exchange(_ path: String, _ request: [UInt8]) throws -> [UInt8] {
        let descriptor = try connect(path)
        defer { close(descriptor) }
        var time = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while answer.count < 64 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        return answer
    }
}
