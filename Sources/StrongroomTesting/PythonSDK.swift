// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// The official Python SDK's virtual environment, made by `Scripts/python-env.sh` (which `Scripts/test.sh` runs).
public enum PythonSDK {
    /// The repository root, found from this file's location.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$STRONGROOM_PYTHON`, else `.build/python-venv/bin/python` in the repository.
    public static var interpreter: URL? {
        if let configured = ProcessInfo.processInfo.environment["STRONGROOM_PYTHON"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        let local = repositoryRoot.appending(path: ".build/python-venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: local.path) ? local : nil
    }

    /// Whether the Python tests run here. In CI they always run (and fail loudly when the environment is
    /// missing); locally they are skipped, with a reason, until someone runs `Scripts/python-env.sh`.
    public static var isAvailableOrRequired: Bool {
        interpreter != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    /// The message for a missing environment.
    public static let missingMessage =
        "the Python SDK environment is missing: run Scripts/python-env.sh (Scripts/test.sh does)"

    /// Runs a script from the repository, or `-m module`, with the SDK's interpreter.
    public static func run(
        _ arguments: [String],
        directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> ExternalProcess.Outcome {
        guard let interpreter else { throw MissingEnvironment() }
        return try await ExternalProcess.run(
            interpreter,
            arguments: arguments,
            directory: directory,
            environment: environment
        )
    }

    /// The path of a file in the repository.
    public static func path(_ relative: String) -> String { repositoryRoot.appending(path: relative).path }

    /// Thrown when the environment is missing.
    public struct MissingEnvironment: Error, CustomStringConvertible {
        public var description: String { PythonSDK.missingMessage }
    }
}
