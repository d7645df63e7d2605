// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ClientProfileTests {
    /// A configuration with fresh keys and a recognisable API secret.
    static func configuration(named name: String) throws -> Client.Configuration {
        Client.Configuration(
            clientID: UUID(),
            clientName: name,
            apiKeyID: "key-id",
            apiSecret: .init(copying: Array("api-secret-value".utf8)),
            keys: .generate(),
            apiURL: try #require(URL(string: "http://127.0.0.1:8000"))
        )
    }

    @Test("types' post-quantum modes save with the profile and load back; a bad or oversized policy is refused")
    func postQuantumModes() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = try Self.configuration(named: "policy")
            try configuration.save(profile: "none", in: directory)
            let none = try Data(contentsOf: directory.appending(path: "none/e3db.json"))
            #expect(!String(decoding: none, as: UTF8.self).contains("post_quantum"), "no policy, no member")
            configuration.postQuantum.modes = ["vault": .require, "legacy": .off]
            try configuration.save(profile: "dev", in: directory)
            let loaded = try Client.Configuration(loadProfile: "dev", from: directory)
            #expect(loaded.postQuantum.modes == ["vault": .require, "legacy": .off])
            #expect(loaded.postQuantum.mode(for: "other") == .prefer)

            let file = directory.appending(path: "dev/e3db.json")
            func refused(_ policy: Any) throws -> ClientError? {
                var json = try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
                )
                json["post_quantum"] = policy
                try JSONSerialization.data(withJSONObject: json).write(to: file)
                chmod(file.path, 0o600)
                return #expect(throws: ClientError.self) {
                    try Client.Configuration(loadProfile: "dev", from: directory)
                }
            }
            #expect(try refused(["types": ["vault": "sometimes"]])?.code == .invalidConfiguration)
            #expect(try refused(["types": ["": "off"]])?.code == .invalidConfiguration)
            let many = Dictionary(uniqueKeysWithValues: (0...10_000).map { ("t\($0)", "off") })
            #expect(try refused(["types": many])?.code == .invalidConfiguration)
            #expect(try refused(["types": "off"])?.code == .invalidConfiguration)
        }
    }

    @Test("a profile saves 0600 in a 0700 folder, loads back equal, and is refused when others can read it")
    func saveAndLoad() async throws {
        try await withTemporaryDirectory { directory in
            let configuration = try Self.configuration(named: "profiled")
            try configuration.save(profile: "dev", in: directory)
            let file = directory.appending(path: "dev/e3db.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let folder = try FileManager.default.attributesOfItem(atPath: directory.appending(path: "dev").path)
            #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)

            let loaded = try Client.Configuration(loadProfile: "dev", from: directory)
            #expect(loaded.clientID == configuration.clientID)
            #expect(loaded.apiSecret == configuration.apiSecret)
            #expect(loaded.keys.encryptionKey.publicKey == configuration.keys.encryptionKey.publicKey)
            #expect(loaded.keys.signingKey.publicKey == configuration.keys.signingKey.publicKey)
            #expect(!String(describing: loaded).contains("api-secret-value"))

            chmod(file.path, 0o644)
            let exposed = #expect(throws: ClientError.self) {
                try Client.Configuration(loadProfile: "dev", from: directory)
            }
            #expect(exposed?.code == .invalidConfiguration)
            let missing = #expect(throws: ClientError.self) {
                try Client.Configuration(loadProfile: "nope", from: directory)
            }
            #expect(missing?.code == .notFound)
        }
    }

    @Test("the official Python SDK loads a profile Swift saved and reads that client's record")
    func pythonLoadsSwiftProfile() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { home in
                let client = try await ClientTestServer.client(url)
                let record = try await client.write(type: "profiled", data: ["via": "a saved profile"])
                try client.configuration.save(profile: "swift", in: home.appending(path: ".tozny"))
                let outcome = try await PythonSDK.run(
                    [
                        PythonSDK.path("Scripts/conformance/interop_client.py"), "read-with-profile", "swift",
                        record.meta.recordID.uuidString.lowercased(),
                    ],
                    environment: [
                        "HOME": home.path, "STRONGROOM_URL": url.absoluteString,
                        "REGISTRATION_TOKEN": ClientTestServer.registrationToken,
                    ]
                )
                #expect(outcome.status == 0, "\(outcome.output)")
                #expect(outcome.output.contains("{\"via\": \"a saved profile\"}"), "\(outcome.output)")
            }
        }
    }
}
