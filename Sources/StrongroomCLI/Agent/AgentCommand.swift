// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CAgent
import Foundation
import StrongroomAgent
import StrongroomCore
import StrongroomKeychain

#if canImport(Glibc)
import Glibc
#endif

/// `strongroom agent`: unlock the keychain once for a session of commands, as `ssh-agent` and `gpg-agent` do.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Unlock the keychain once for a session of commands (opt-in; like ssh-agent).",
        discussion: """
            `agent start` asks for the keychain passphrase, derives its key (Argon2id, once) and leaves a background \
            process holding the unlocked key on a Unix socket only you can use (mode 0600, peers of other users \
            refused). Every later command that opens that keychain file asks the agent instead of you, until \
            `agent stop` (which wipes the key), --idle-timeout without a use (15 minutes by default), or the socket \
            file being removed. The socket is $STRONGROOM_AGENT_SOCKET, else agent.sock in STRONGROOM_HOME \
            (~/.strongroom); STRONGROOM_AGENT_SOCKET= (empty) makes commands ignore the agent. Any process of yours \
            can read your keychain while it runs: that is what an agent is for; stop it when you step away. \
            Items kept with --user-presence still ask for the passphrase every time.
            """,
        subcommands: [Start.self, Stop.self, Status.self, Serve.self]
    )

    /// The socket path, refused in words when unusable.
    static func socketPath() throws -> String {
        guard let path = AgentClient.socketPath else {
            throw CLIError(
                description: "error: STRONGROOM_AGENT_SOCKET is empty, which turns the agent off",
                exitCode: .validationFailure
            )
        }
        guard path.utf8.count <= UnixSocket.maximumPathLength else {
            throw CLIError(
                description: "error: the agent's socket path is longer than \(UnixSocket.maximumPathLength) bytes: "
                    + "set STRONGROOM_AGENT_SOCKET to a shorter one",
                exitCode: .validationFailure
            )
        }
        return path
    }

    /// Whether a socket file (not a regular file or folder) is at `path`.
    static func isSocket(_ path: String) -> Bool {
        var information = stat()
        return lstat(path, &information) == 0 && information.st_mode & S_IFMT == S_IFSOCK
    }

    /// Removes a socket file no agent answers on; refuses anything else at that path.
    static func removeStale(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) || isSocket(path) else { return }
        guard isSocket(path) else {
            throw CLIError(
                description: "error: \(path) is not the agent's socket; move it away or set STRONGROOM_AGENT_SOCKET",
                exitCode: .init(9)
            )
        }
        unlink(path)
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unlock the keychain once and keep it unlocked for later commands."
        )

        @Option(help: "Stop after this long without a use: seconds, or 30s, 15m, 8h (at most 7d).")
        var idleTimeout = "15m"
        @OptionGroup var keychain: KeychainOptions

        func run() async throws {
            guard keychain.backend == .file else {
                throw CLIError(
                    description:
                        "error: the agent holds encrypted-file keychains; the Secret Service unlocks itself",
                    exitCode: .validationFailure
                )
            }
            let seconds = try AgentCommand.seconds(idleTimeout)
            let path = try AgentCommand.socketPath()
            try AgentCommand.prepareFolder(of: path)
            if let running = try? AgentClient.status(at: path) {
                throw CLIError(
                    description: "error: an agent is running already (pid \(running.pid)); "
                        + "`strongroom agent stop` first",
                    exitCode: .init(9)
                )
            }
            try AgentCommand.removeStale(path)
            let url = keychain.fileURL
            let backend = try await BlockingExecutor.shared.run { _ throws(KeychainError) in
                try EncryptedFileBackend.open(at: url)
            }
            let passphrase = try keychain.passphrase()
            let key = try await BlockingExecutor.shared.run { _ throws(KeychainError) in
                try backend.unlockKey(passphrase: passphrase)
            }
            let pid = try await BlockingExecutor.shared.run { _ in
                try AgentLauncher.launch(
                    key: key,
                    keychainPath: url.path,
                    socketPath: path,
                    idleTimeoutSeconds: seconds
                )
            }
            print(
                "agent started (pid \(pid)): \(url.path) opens without its passphrase until "
                    + "`strongroom agent stop` or \(AgentCommand.describe(seconds)) unused"
            )
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Wipe the agent's keys and end it.")

        func run() async throws {
            let path = try AgentCommand.socketPath()
            let stopped = try await BlockingExecutor.shared.run { _ in
                if try AgentClient.stop(at: path) { return true }
                try AgentCommand.removeStale(path)
                return false
            }
            print(stopped ? "agent stopped: its keys are wiped" : "no agent is running")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whether an agent runs, what it holds and when it stops (exit 7 when none runs)."
        )

        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let path = try AgentCommand.socketPath()
            guard let status = try await BlockingExecutor.shared.run({ _ in try AgentClient.status(at: path) })
            else {
                throw CLIError(description: "no agent is running", exitCode: .init(7))
            }
            if json { return try printJSON(status) }
            print("agent pid \(status.pid) on \(status.socket)")
            for keychain in status.keychains { print("holds the keychain \(keychain)") }
            if let more = status.keychainsNotListed {
                print("holds \(more) more keychain\(more == 1 ? "" : "s") whose paths are too long to list")
            }
            print(
                "stops after \(AgentCommand.describe(status.idleTimeoutSeconds)) unused "
                    + "(\(AgentCommand.describe(status.secondsUntilIdleExit)) left)"
            )
        }
    }

    /// The agent process itself (started by `agent start`, which hands it the key on standard input).
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(shouldDisplay: false)

        @Option var socket: String
        @Option var idleTimeout: Int

        func run() async throws {
            cagent_disable_dumps()  // no core file, and no ptrace by other processes of this user
            let listener: UnixSocket
            let server: AgentServer
            do {
                guard (1...AgentCommand.maximumIdleSeconds).contains(idleTimeout) else {
                    throw AgentLauncher.failure("the idle timeout is out of range")
                }
                // The plaintext key lives only in this block: the server keeps it sealed, and this copy is wiped
                // when the block ends, before the agent serves for hours.
                let (key, keychainPath) = try AgentLauncher.receive()
                listener = try UnixSocket.listen(at: socket)
                server = AgentServer(
                    socketPath: socket,
                    idleTimeout: .seconds(idleTimeout),
                    holding: AgentServer.Held(keychainPath: keychainPath, key: key)
                )
            } catch {
                print(CLIError.from(error).description)
                throw ExitCode(1)
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            // Detached from the starting command: its output pipe closes so `agent start` can return.
            let null = open("/dev/null", O_RDWR)
            if null >= 0 {
                dup2(null, STDIN_FILENO)
                dup2(null, STDOUT_FILENO)
                close(null)
            }
            await BlockingExecutor.shared.run { isCancelled in server.serve(listener, isCancelled: isCancelled) }
        }
    }

    static let maximumIdleSeconds = 7 * 24 * 3600

    /// Seconds from `90`, `90s`, `15m`, `8h` or `7d`, between 1 second and 7 days.
    static func seconds(_ text: String) throws -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let multiplier = units[last] {
            digits = text.dropLast()
            unit = multiplier
        }
        guard digits.count <= 7, let value = Int(digits), value > 0, value * unit <= maximumIdleSeconds else {
            throw CLIError(
                description: "error: --idle-timeout takes 1s to 7d (seconds, or a number with s, m, h or d)",
                exitCode: .validationFailure
            )
        }
        return value * unit
    }

    /// `15 minutes`, `2 hours`, `45 seconds`.
    static func describe(_ seconds: Int) -> String {
        let (value, unit) =
            seconds % 86_400 == 0 && seconds > 0
            ? (seconds / 86_400, "day")
            : seconds % 3600 == 0 && seconds > 0
                ? (seconds / 3600, "hour")
                : seconds % 60 == 0 && seconds > 0 ? (seconds / 60, "minute") : (seconds, "second")
        return "\(value) \(unit)\(value == 1 ? "" : "s")"
    }

    /// The socket's folder: made owner-only when it is missing, refused when others could replace the socket.
    static func prepareFolder(of path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(
                atPath: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        var information = stat()
        guard stat(folder, &information) == 0, information.st_uid == getuid(),
            information.st_mode & 0o022 == 0
        else {
            throw CLIError(
                description: "error: \(folder) must be yours and writable by you alone to hold the agent's socket "
                    + "(chmod go-w it, or set STRONGROOM_AGENT_SOCKET)",
                exitCode: .init(8)
            )
        }
    }
}
