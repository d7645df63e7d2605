// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import StrongroomServerTesting
import StrongroomTesting
import Testing

/// The official Python SDK's whole test suite (e3db 2.3.0, `e3db/tests/`), unchanged, against a server this test
/// starts: integration, sharing, search, notes, TSV1, crypto and identity. Only its NIST-mode tests skip themselves.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct PythonSDKConformanceTests {
    @Test(
        "the official SDK's entire test suite passes against Strongroom",
        arguments: TestEngine.available
    )
    func officialSuites(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        let outcome = try await TestServer.run(engine: engine) { api in
            try await withTemporaryDirectory { home in
                try await PythonSDK.run(
                    ["-m", "pytest", "--pyargs", "e3db.tests", "-q", "-p", "no:cacheprovider"],
                    directory: home,
                    environment: [
                        "HOME": home.path,
                        "REGISTRATION_TOKEN": TestServer.registrationToken,
                        "DEFAULT_API_URL": api.baseURL,
                        "TZ": "America/Phoenix",
                    ]
                )
            }
        }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains(" passed"), "\(outcome.output)")
        #expect(!outcome.output.contains(" failed"), "\(outcome.output)")
        #expect(!outcome.output.contains(" error"), "\(outcome.output)")
    }

    @Test("the deployment guide's Python example runs against the server", arguments: TestEngine.available)
    func readmeExample(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        let outcome = try await TestServer.run(engine: engine) { api in
            try await PythonSDK.run(
                [PythonSDK.path("Scripts/readme-example.py")],
                environment: ["STRONGROOM_URL": api.baseURL, "REGISTRATION_TOKEN": TestServer.registrationToken]
            )
        }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("{'name': 'Ada Lovelace'}"), "\(outcome.output)")
    }

    @Test(
        "a 50 MiB file written by the official SDK is read back by its writer and by a reader it shared with",
        arguments: TestEngine.available
    )
    func largeFile(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        let outcome = try await TestServer.run(engine: engine) { api in
            try await PythonSDK.run(
                [PythonSDK.path("Scripts/conformance/large_file.py")],
                environment: ["STRONGROOM_URL": api.baseURL, "REGISTRATION_TOKEN": TestServer.registrationToken]
            )
        }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("identical"), "\(outcome.output)")
    }

    @Test(
        "the official SDK shares a type twice without an error, and after a revocation again",
        arguments: TestEngine.available
    )
    func shareTwice(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        let outcome = try await TestServer.run(engine: engine) { api in
            try await PythonSDK.run(
                [PythonSDK.path("Scripts/conformance/share_twice.py")],
                environment: ["STRONGROOM_URL": api.baseURL, "REGISTRATION_TOKEN": TestServer.registrationToken]
            )
        }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("shared twice") && outcome.output.contains("reader reads"), "\(outcome.output)")
    }
}
