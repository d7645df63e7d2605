// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// The official Python SDK's virtual environment, made by `Scripts/python-env.sh` (which `Scripts/test.sh` runs).
enum PythonSDK {
    /// The repository root, found from this file's location.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$STRONGROOM_PYTHON`, else `.build/python-venv/bin/python` in the repository.
    static var interpreter: URL? {
        if let configured = ProcessInfo.processInfo.environment["STRONGROOM_PYTHON"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        let local = repositoryRoot.appending(path: ".build/python-venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: local.path) ? local : nil
    }

    /// Whether the Python interop tests can run here. In CI they always run (and fail loudly if the environment
    /// is missing); locally they are skipped with a reason when nobody has run `Scripts/python-env.sh`.
    static var isAvailableOrRequired: Bool {
        interpreter != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static let missingMessage =
        "the Python SDK environment is missing: run Scripts/python-env.sh (Scripts/test.sh does)"

    /// Runs a script from `Scripts/` with the SDK's interpreter and returns its exit status and output.
    static func run(script: String, arguments: [String]) throws -> (status: Int32, output: String) {
        guard let interpreter else { throw MissingEnvironment() }
        let process = Process()
        process.executableURL = interpreter
        process.arguments = [repositoryRoot.appending(path: script).path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    struct MissingEnvironment: Error, CustomStringConvertible {
        var description: String { PythonSDK.missingMessage }
    }
}
