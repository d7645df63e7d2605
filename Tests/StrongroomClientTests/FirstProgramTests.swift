// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// The README's first Swift program (Examples/FirstProgram, built with the package): its code is the README's, and it
/// runs against a real server — two clients register, one shares a record, the other reads it.
@Suite struct FirstProgramTests {
    static let source = PythonSDK.repositoryRoot.appending(path: "Examples/FirstProgram/main.swift")

    /// The program's code from its first `let` on: what the README shows.
    static func body() throws -> String {
        let text = try String(contentsOf: source, encoding: .utf8)
        let start = try #require(text.range(of: "let arguments"), "no program in \(source.path)")
        return String(text[start.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the README shows the program exactly as it is built")
    func readmeShowsIt() throws {
        let readme = try String(contentsOf: PythonSDK.repositoryRoot.appending(path: "README.md"), encoding: .utf8)
        #expect(readme.contains(try Self.body()), "README.md must show Examples/FirstProgram/main.swift's code")
    }

    @Test("it registers two clients, shares a record from one to the other, and prints what the other read")
    func runs() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "first-program"]) {
            server,
            _ in
            let program = ServerProcess.executable.deletingLastPathComponent()
                .appending(path: "strongroom-example-first-program")
            let outcome = try await ExternalProcess.run(program, arguments: [server.baseURL, "first-program"])
            #expect(outcome.status == 0, "\(outcome.output)")
            let printed = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(printed == "first secret", "\(outcome.output)")
        }
    }
}
