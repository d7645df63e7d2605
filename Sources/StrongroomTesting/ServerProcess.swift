// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The real `strongroom-server` executable, run as a child process (crash tests, benchmarks).
public final class ServerProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by start/kill, which tests call from one task.
    private let process: ChildProcess
    /// The loopback port it listens on.
    public let port: Int
    /// `http` or `https`.
    public let scheme: String
    /// `<scheme>://127.0.0.1:<port>`.
    public var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    /// The executable built next to the tests (`swift build` puts it in the same folder), or
    /// `$STRONGROOM_SERVER_BINARY`.
    public static var executable: URL {
        if let configured = ProcessInfo.processInfo.environment["STRONGROOM_SERVER_BINARY"] {
            return URL(fileURLWithPath: configured)
        }
        // The test runner is `<build folder>/StrongroomPackageTests.xctest`; the executable sits beside it.
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return runner.deletingLastPathComponent().appending(path: "strongroom-server")
    }

    /// The token key every server of this test run gets through `STRONGROOM_TOKEN_KEY`, as an operator gives one to
    /// every instance of a deployment: on PostgreSQL a key from the data directory is refused unless the server is
    /// declared the only instance, and restarts keep their tokens valid. Pass `STRONGROOM_TOKEN_KEY: ""` in
    /// `environment` to use the data directory's key file instead.
    public static let tokenKey: String = {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return key.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }()

    /// The request timeouts every test server starts with: five minutes for a head or a body, any rate, and
    /// presigned file URLs that live fifteen minutes — a test process starved for over a minute between creating a
    /// file record and starting its upload found the 60 s URL expired. Idle connections keep the server's 60 s:
    /// tests that upload files over a kept-alive connection (`ClientTransportTests`, `MutualTLSTests`) pass
    /// ``patientIdle`` themselves. Not every server: connections kept open pile up file descriptors in the test
    /// process.
    public static let unhurried = [
        "--header-timeout", "300", "--body-timeout", "300", "--body-minimum-rate", "1", "--presigned-url-lifetime",
        "900",
    ]

    /// Idle connections kept fifteen minutes: a test process starved for over a minute otherwise finds its
    /// kept-alive connection closed by the server's 60 s idle timeout before its own 20 s one ran, and a file upload
    /// on it — a body that is not sent twice — fails with "closed the connection without an HTTP answer".
    public static let patientIdle = ["--idle-timeout", "900"]

    /// Starts the server with `arguments` after `serve --port 0 --port-file …` and waits until it has bound a port
    /// and `/health` answers there. The kernel picks the port as the server binds, so two tests can never race
    /// for one. With TLS arguments pass `scheme: "https"`: readiness is then a TCP connection, since the test's
    /// trust roots are not the system's.
    public init(arguments: [String], environment: [String: String] = [:], scheme: String = "http") async throws {
        let portFile = FileManager.default.temporaryDirectory.appending(path: "strongroom-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: portFile) }  // best effort: a stray file is harmless
        let process = ChildProcess()
        process.executableURL = Self.executable
        // Unhurried request timeouts (a test's own arguments, after them, win): a test process on a busy machine, or
        // the strict pass's one concurrency thread, may send a body slower than a deployment's 1 KiB/s, and the
        // server must not cut it for that (no test depends on wall-clock speed).
        process.arguments =
            ["serve", "--port", "0", "--port-file", portFile.path, "--log-level", "warning"] + Self.unhurried
            + arguments
        process.environment = ProcessInfo.processInfo.environment
            .merging(["STRONGROOM_TOKEN_KEY": Self.tokenKey]) { _, new in new }
            .merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // `STRONGROOM_TEST_SERVER_LOG=<file>`: every test server appends its log there (to debug a test), at
        // `STRONGROOM_TEST_SERVER_LOG_LEVEL` (default info; trace shows each connection's failures). A folder
        // gives each server a file of its own (servers running at once would otherwise interleave in one).
        if let log = Self.logFile(),
            FileManager.default.fileExists(atPath: log) || FileManager.default.createFile(atPath: log, contents: nil),
            let handle = FileHandle(forWritingAtPath: log)
        {
            handle.seekToEndOfFile()
            process.standardOutput = handle
            process.standardError = handle
            process.arguments? += [
                "--log-level", ProcessInfo.processInfo.environment["STRONGROOM_TEST_SERVER_LOG_LEVEL"] ?? "info",
            ]
        }
        try process.run()
        self.process = process
        self.port = try await Self.boundPort(of: process, in: portFile)
        self.scheme = scheme
        try await waitUntilHealthy()
    }

    /// Where this server logs when `STRONGROOM_TEST_SERVER_LOG` asks for it: that file, or a new file in that folder.
    private static func logFile() -> String? {
        guard let log = ProcessInfo.processInfo.environment["STRONGROOM_TEST_SERVER_LOG"] else { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: log, isDirectory: &isFolder), isFolder.boolValue else {
            return log
        }
        return URL(filePath: log).appending(path: "server-\(UUID().uuidString.prefix(8)).log").path
    }

    /// The port the server wrote to `file` once listening.
    private static func boundPort(of process: ChildProcess, in file: URL) async throws -> Int {
        for _ in 0..<300 {
            if !process.isRunning { throw StartError(message: "strongroom-server exited during start-up") }
            if let text = try? String(contentsOf: file, encoding: .utf8),  // not written yet: look again
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StartError(message: "strongroom-server did not bind a port within 15 s")
    }

    /// Sends SIGKILL: no chance to flush or clean up, as in a crash.
    public func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits for a graceful exit: five minutes at most, then SIGKILL, so that a server that never
    /// finishes draining cannot hold the caller's thread (often one of the cooperative pool's) for the rest of the run.
    public func stop() {
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(300)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill() } else { process.waitUntilExit() }
    }

    /// Sends SIGTERM and returns at once: the server drains what is in flight, then exits.
    public func beginShutdown() { process.terminate() }

    /// Waits (off the cooperative pool) until the process has exited, at most `limit`; whether it exited.
    public func waitForExit(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        // Test support: polling until exit; cancellation just ends the poll.
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return !process.isRunning
    }

    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }

    /// The server's process ID.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// CPU time the server has used so far (user and system, from `/proc/<pid>/stat`), in seconds; nil when it
    /// cannot be read.
    public var cpuSeconds: Double? {
        // Test support: a process that has exited has no stat.
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Whether the server still accepts TCP connections on its port.
    public var isListening: Bool { Self.accepts(port: port) }

    private func waitUntilHealthy() async throws {
        guard let url = URL(string: "\(baseURL)/health") else { throw StartError(message: "bad URL") }
        for _ in 0..<300 {
            if !process.isRunning { throw StartError(message: "strongroom-server exited during start-up") }
            if scheme == "https" {
                if Self.accepts(port: port) { return }
                try await Task.sleep(for: .milliseconds(50))
                continue
            }
            if let (_, response) = try? await URLSession.shared.data(from: url),  // not up yet: try again
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StartError(message: "strongroom-server did not answer /health within 15 s")
    }

    /// A loopback port nothing listens on now (the kernel's choice), for a helper server a test starts.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw StartError(message: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `127.0.0.1:port` as a socket address.
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    /// Whether something listens on the loopback `port`.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// The server did not come up.
    public struct StartError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}

extension ServerProcess {
    /// Runs the real server on `engine` over a fresh data directory (and, on PostgreSQL, a fresh database of the
    /// test cluster), and stops it afterwards. `body` gets the server and the storage arguments it was started with
    /// (`--data-directory …` and `--database-url …`), to restart it on the same data. `environment` is added to the
    /// server's.
    public static func withServer<R>(
        engine: TestEngine,
        arguments: [String] = [],
        environment: [String: String] = [:],
        _ body: (ServerProcess, _ storageArguments: [String]) async throws -> R
    ) async throws -> R {
        try await withTemporaryDirectory { directory in
            func start(_ storage: [String]) async throws -> R {
                let server = try await ServerProcess(arguments: storage + arguments, environment: environment)
                defer { if server.isRunning { server.stop() } }
                return try await body(server, storage)
            }
            let data = ["--data-directory", directory.appending(path: "data").path]
            switch engine {
            case .sqlite: return try await start(data)
            case .postgres:
                return try await TestDatabase.withPostgres {
                    try await start(data + ["--database-url", $0])
                }
            }
        }
    }
}
