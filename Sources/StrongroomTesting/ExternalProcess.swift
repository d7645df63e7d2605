// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Runs helper programs (the Python SDK, database servers) from tests without blocking a thread of the
/// cooperative pool: output goes to a file and termination is awaited.
public enum ExternalProcess {
    /// What a finished process left behind.
    public struct Outcome: Sendable {
        /// The exit status (the signal's number when one ended it).
        public var status: Int32
        /// Whether a signal ended the process (SIGKILL: `status` is 9).
        public var signalled = false
        /// Standard output and standard error, interleaved.
        public var output: String
    }

    /// Runs `executable` with `arguments`, in `directory`, with `environment` added to the current one and `input`
    /// as its standard input (empty by default).
    public static func run(
        _ executable: URL,
        arguments: [String],
        directory: URL? = nil,
        environment: [String: String] = [:],
        input: String? = nil
    ) async throws -> Outcome {
        let log = FileManager.default.temporaryDirectory.appending(path: "strongroom-process-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        defer { try? FileManager.default.removeItem(at: log) }  // best effort: a leftover log is harmless
        let handle = try FileHandle(forWritingTo: log)
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        if let input {
            let inputFile = log.appendingPathExtension("input")
            try Data(input.utf8).write(to: inputFile)
            defer { try? FileManager.default.removeItem(at: inputFile) }  // the open handle keeps it readable
            process.standardInput = try FileHandle(forReadingFrom: inputFile)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        let (status, signalled): (Int32, Bool) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = {
                continuation.resume(returning: ($0.terminationStatus, $0.terminationReason == .uncaughtSignal))
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try handle.close()
        return Outcome(
            status: status,
            signalled: signalled,
            // Test support: a missing log reads as no output.
            output: (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        )
    }
}
