// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

/// The Swift client and the official Python SDK read each other's records through one server.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct ClientInteropTests {
    @Test("Python shares with Swift and Swift shares with Python", arguments: TestEngine.available)
    func bothDirections(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let environment = [
                    "STRONGROOM_URL": url.absoluteString, "REGISTRATION_TOKEN": ClientTestServer.registrationToken,
                ]
                let script = PythonSDK.path("Scripts/conformance/interop_client.py")
                let config = directory.appending(path: "python.json").path
                func python(_ arguments: [String]) async throws -> String {
                    let outcome = try await PythonSDK.run([script] + arguments, environment: environment)
                    try #require(outcome.status == 0, "\(outcome.output)")
                    return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let swift = try await ClientTestServer.client(url)
                let pythonID = try #require(UUID(uuidString: try await python(["register", config])))

                // Python → Swift
                let recordID = try #require(
                    UUID(
                        uuidString: try await python([
                            "write-share", config, swift.configuration.clientID.uuidString.lowercased(),
                        ])
                    )
                )
                let fromPython = try await swift.read(recordID: recordID)
                #expect(fromPython.data == ["msg": "from python 🐍", "n": "42"])
                #expect(fromPython.meta.plain == ["origin": "python"])
                #expect(fromPython.meta.writerID == pythonID)

                // Swift → Python
                try await swift.share(type: "swift-to-py", readerID: pythonID)
                let record = try await swift.write(type: "swift-to-py", data: ["msg": "from swift 🕊️", "n": "7"])
                let read = try await python(["read", config, record.meta.recordID.uuidString.lowercased()])
                #expect(read == "{\"msg\": \"from swift 🕊️\", \"n\": \"7\"}")
            }
        }
    }
}
