// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and kill during a decryption (issue 44, item 11): the plaintext being written is in an unnamed file until
/// it is complete, so no partial plaintext is ever visible, not even to a SIGKILL; SIGINT prints `cancelled` and
/// exits 130.
@Suite struct CLIInterruptTests {
    /// Encrypts a 512 MiB file of zeros (sparse, so it costs no disk to make) with a key file; `body` gets the folder.
    private func withEncryptedFile(_ body: (URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let environment = ["STRONGROOM_HOME": folder.path]
            let key = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["keys", "access-key", "--output", "file.key"],
                directory: folder,
                environment: environment
            )
            try #require(key.status == 0, "\(key.output)")
            let plain = folder.appending(path: "big.bin")
            try #require(FileManager.default.createFile(atPath: plain.path, contents: nil))
            let handle = try FileHandle(forWritingTo: plain)
            try handle.truncate(atOffset: 512 << 20)
            try handle.close()
            let encrypted = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["file", "encrypt", "--key-file", "file.key", "big.bin", "big.e3db"],
                directory: folder,
                environment: environment
            )
            try #require(encrypted.status == 0, "\(encrypted.output)")
            try FileManager.default.removeItem(at: plain)
            try await body(folder)
        }
    }

    /// Whether `process` has a file named `name` open (Linux `/proc/<pid>/fd`).
    private static func isReading(_ name: String, process: Int32) -> Bool {
        let folder = "/proc/\(process)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []  // gone: not reading
        return descriptors.contains { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor))?.hasSuffix(
                "/" + name
            ) == true
        }
    }

    /// Names in `folder` other than the inputs.
    private func leftovers(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !["file.key", "big.e3db", "log"].contains($0) && !$0.hasPrefix(".strongroom-home") }
            .filter { $0 != "keychain" && !$0.hasSuffix(".keychain") }
    }

    /// Starts `strongroom file decrypt` of `big.e3db` into `out.bin`, watches the folder while it runs, sends
    /// `signal` once it has run a moment, and returns (exit status, output, names seen while it ran).
    private func interruptDecryption(in folder: URL, with signal: Int32) async throws -> (Int32, String, Set<String>) {
        let process = ChildProcess()
        process.executableURL = CLISessionTests.CLI.executable
        process.arguments = ["file", "decrypt", "--key-file", "file.key", "big.e3db", "out.bin"]
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(["STRONGROOM_HOME": folder.path]) { $1 }
        let log = folder.appending(path: "log")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var seen: Set<String> = []
        var sent = false
        while process.isRunning {
            seen.formUnion(try leftovers(in: folder))
            // Signalled once it is reading the input (its handlers are in place before the command runs), however
            // long the start took on a busy machine.
            if !sent, Self.isReading("big.e3db", process: process.processIdentifier) {
                kill(process.processIdentifier, signal)
                sent = true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8), seen)
    }

    @Test("SIGINT during file decrypt: cancelled, exit 130, and no file (partial or whole) was ever visible")
    func interrupt() async throws {
        try await withEncryptedFile { folder in
            let (status, output, seen) = try await interruptDecryption(in: folder, with: SIGINT)
            #expect(seen.isEmpty, "visible while decrypting: \(seen)")
            if status == 0 {
                // The machine finished 512 MiB within the first polls: nothing was interrupted, nothing to check.
                withKnownIssue("decryption finished before the signal") { Issue.record("not interrupted") }
                return
            }
            #expect(status == 130 && output.contains("cancelled"), "\(status): \(output)")
            let left = try leftovers(in: folder)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("SIGKILL during file decrypt leaves no partial plaintext: it was never named")
    func kill9() async throws {
        try await withEncryptedFile { folder in
            let (status, _, seen) = try await interruptDecryption(in: folder, with: SIGKILL)
            #expect(seen.isEmpty, "visible while decrypting: \(seen)")
            let left = try leftovers(in: folder)
            if status != 0 { #expect(left.isEmpty, "\(left)") }
        }
    }
}
