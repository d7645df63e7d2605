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

/// Starting the agent process and handing it the unlocked key: `agent start` spawns `strongroom agent serve` in a
/// session of its own (so the terminal's Ctrl-C and hang-up do not reach it), writes the key to the child's
/// standard input — never its arguments or environment — and waits for the child to say it listens.
enum AgentLauncher {
    /// How long `agent start` waits for the child to bind its socket: generous, a hang guard on a loaded machine.
    static let readyTimeoutMilliseconds: Int32 = 120_000
    static let maximumPathBytes = 4_096

    /// The failure of a start, in the user's words.
    static func failure(_ message: String) -> CLIError {
        CLIError(description: "error: \(message)", exitCode: .init(1))
    }

    /// Spawns the agent and hands it `key`; returns its process ID once it listens on `socketPath`.
    static func launch(
        key: KeychainUnlockKey,
        keychainPath: String,
        socketPath: String,
        idleTimeoutSeconds: Int
    ) throws -> pid_t {
        guard keychainPath.utf8.count <= maximumPathBytes, key.storeID.utf8.count <= 128 else {
            throw failure("the keychain's path is longer than \(maximumPathBytes) bytes")
        }
        // A child that dies before reading its key must fail the write, not end this process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let input = try pipePair()
        let output = try pipePair()
        let arguments = [
            try executablePath(), "agent", "serve", "--socket", socketPath,
            "--idle-timeout", String(idleTimeoutSeconds),
        ]
        let spawned = Result { try spawn(arguments, standardInput: input.read, standardOutput: output.write) }
        // The child's ends: the parent keeps none, so the child's closing its output is the parent's end of file.
        close(input.read)
        close(output.write)
        guard case .success(let pid) = spawned else {
            close(input.write)
            close(output.read)
            return try spawned.get()
        }
        // The handoff: store ID, keychain path, then the 32-byte key, each length-prefixed except the key.
        var handoff = framed(Array(key.storeID.utf8)) + framed(Array(keychainPath.utf8))
        defer { Wipe.bytes(&handoff) }
        let sent = writeAll(input.write, handoff) && key.dataKey.withUnsafeBytes { writeAll(input.write, $0) }
        close(input.write)
        guard sent else { throw failure("the agent process ended before it took the key") }
        let answer = readLine(from: output.read)
        close(output.read)
        guard answer == "ready" else {
            kill(pid, SIGTERM)  // one that answers late must not be left running unannounced
            throw failure(
                answer.map { $0.hasPrefix("error: ") ? String($0.dropFirst(7)) : $0 }
                    ?? "the agent process did not start"
            )
        }
        return pid
    }

    /// Reads the handoff in the child: store ID, keychain path, key. Every length is checked before it is read.
    static func receive() throws -> (key: KeychainUnlockKey, keychainPath: String) {
        guard let storeID = readFramed(limit: 128), let path = readFramed(limit: maximumPathBytes) else {
            throw failure("the agent was started without a key (run `strongroom agent start`)")
        }
        let key = try SecureBytes(count: 32) { (buffer) throws(CLIError) in
            guard readAll(STDIN_FILENO, buffer) else { throw failure("the agent's key was cut short") }
        }
        return (
            KeychainUnlockKey(storeID: String(decoding: storeID, as: UTF8.self), dataKey: key),
            String(decoding: path, as: UTF8.self)
        )
    }

    // MARK: Descriptors

    private static func pipePair() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard cagent_pipe(&descriptors) == 0 else {
            throw failure("no pipe for the agent: \(String(cString: strerror(errno)))")
        }
        return (descriptors[0], descriptors[1])
    }

    private static func framed(_ bytes: [UInt8]) -> [UInt8] { AgentProtocol.bigEndian(bytes.count) + bytes }

    private static func readFramed(limit: Int) -> [UInt8]? {
        var header = [UInt8](repeating: 0, count: 2)
        guard header.withUnsafeMutableBytes({ readAll(STDIN_FILENO, $0) }) else { return nil }
        let count = AgentProtocol.length(header[...])
        guard count <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard bytes.withUnsafeMutableBytes({ readAll(STDIN_FILENO, $0) }) else { return nil }
        return bytes
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(descriptor, $0) }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        return ExactIO.transfer(count: bytes.count, endOfStream: EPIPE) {
            write(descriptor, base + $0, bytes.count - $0)
        } == nil
    }

    private static func readAll(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        return ExactIO.transfer(count: buffer.count, endOfStream: ECONNRESET) {
            read(descriptor, base + $0, buffer.count - $0)
        } == nil
    }

    /// The child's first line (at most 4 KiB), waiting at most ``readyTimeoutMilliseconds``; nil when it closed
    /// its output without one.
    private static func readLine(from descriptor: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 4_096 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, readyTimeoutMilliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    // MARK: Spawning

    /// This executable, so the agent is the same build as the command that starts it.
    private static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 { return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        guard let path = Bundle.main.executablePath else { throw failure("cannot find the strongroom executable") }
        return path
    }

    /// Spawns `arguments` (the first is the executable) in a session of its own; see `cagent_spawn`.
    private static func spawn(_ arguments: [String], standardInput: Int32, standardOutput: Int32) throws -> pid_t {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let result = cagent_spawn(&pid, arguments[0], argv, standardInput, standardOutput)
        guard result == 0 else {
            throw failure("the agent process could not start: \(String(cString: strerror(result)))")
        }
        return pid
    }
}
