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
                let peer = PythonPeer(url: url, directory: directory)
                let config = peer.config
                func python(_ arguments: [String]) async throws -> String { try await peer.run(arguments) }
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

    @Test("an authorizer in one SDK shares on behalf of a writer in the other", arguments: TestEngine.available)
    func authorizersAcrossSDKs(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let config = peer.config
                func python(_ arguments: [String]) async throws -> String { try await peer.run(arguments) }
                let swiftWriter = try await ClientTestServer.client(url, "swift-writer")
                let swiftReader = try await ClientTestServer.client(url, "swift-reader")
                let pythonID = try #require(UUID(uuidString: try await python(["register", config])))
                let id = { (client: Client) in client.configuration.clientID.uuidString.lowercased() }

                // A Swift writer; the Python client is its authorizer and shares with a Swift reader.
                let record = try await swiftWriter.write(type: "delegated", data: ["msg": "via a python authorizer"])
                try await swiftWriter.add(authorizerID: pythonID, type: "delegated")
                _ = try await python(["share-on-behalf", config, id(swiftWriter), id(swiftReader), "delegated"])
                #expect(
                    try await swiftReader.read(recordID: record.meta.recordID).data == [
                        "msg": "via a python authorizer"
                    ]
                )

                // A Python writer; the Swift client is its authorizer and shares with another Swift reader.
                let pythonRecord = try #require(UUID(uuidString: try await python(["write", config, "py-delegated"])))
                _ = try await python(["add-authorizer", config, "py-delegated", id(swiftWriter)])
                try await swiftWriter.share(
                    onBehalfOf: pythonID,
                    type: "py-delegated",
                    readerID: swiftReader.configuration.clientID
                )
                #expect(try await swiftReader.read(recordID: pythonRecord).data == ["msg": "python wrote this"])
            }
        }
    }
}
