// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom doctor` and `strongroom integrity check-in` against the real server with `--refuse-integrity`.
@Suite struct CLIDoctorTests {
    @Test(
        "doctor reports each aspect; check-in registers and reports; a compromised report makes writes exit 8 until cleared"
    )
    func doctorAndCheckIn() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await ServerProcess(
                arguments: [
                    "--data-directory", directory.appending(path: "data").path, "--registration-token", "tok",
                    "--refuse-integrity", "compromised",
                ]
            )
            defer { server.stop() }
            let keychain = ["--keychain-file", directory.appending(path: "k").path]
            // Root and containers are expected where these tests run; the policy is data, so say so.
            let weigh = ["--weigh", "running-as-root=informational"]
            func run(_ arguments: [String]) async throws -> ExternalProcess.Outcome {
                try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: arguments,
                    directory: directory,
                    environment: [
                        "STRONGROOM_HOME": directory.appending(path: "profiles").path,
                        "STRONGROOM_KEYCHAIN_PASSPHRASE": "doctor pass",
                    ]
                )
            }
            #expect(try await run(["register", "--token", "tok", "--url", server.baseURL]).status == 0)
            #expect(try await run(["keychain", "create", "--kdf", "minimum"] + keychain).status == 0)

            let doctor = try await run(["doctor"] + keychain + weigh)
            #expect(doctor.status == 0, "\(doctor.output)")
            for aspect in ["server", "pins", "registered", "clock", "certificate", "keychain", "integrity"] {
                #expect(doctor.output.contains("ok   \(aspect):"), "\(aspect): \(doctor.output)")
            }
            let json = try await run(["doctor", "--json"] + keychain + weigh)
            let lines = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
            #expect(lines?.count == 7)

            let clean = try await run(["integrity", "check-in"] + keychain + weigh)
            #expect(clean.status == 0 && clean.output.contains("integrity: clean"), "\(clean.output)")
            #expect(try await run(["write", "--type", "n", "a=b"]).status == 0)

            // Make the report compromised by policy: the server now refuses this client's requests.
            let bad = try await run(
                ["integrity", "check-in", "--weigh", "manifest-missing=compromised"] + keychain + weigh
            )
            #expect(bad.status == 8, "\(bad.output)")
            let refused = try await run(["write", "--type", "n", "a=b"])
            #expect(refused.status == 8, "\(refused.output)")
            #expect(refused.output.contains("held after a compromised integrity report"), "\(refused.output)")
            #expect(!refused.output.contains("/v1/"), "no route, in the user's words: \(refused.output)")
            // A clean report does not lift a compromised one: the client is held until an administrator clears it.
            #expect(try await run(["integrity", "check-in"] + keychain + weigh).status == 8)
            #expect(try await run(["write", "--type", "n", "a=b"]).status == 8)
            let whoami = try await run(["whoami", "--json"])
            let identity = try JSONSerialization.jsonObject(with: Data(whoami.output.utf8)) as? [String: String]
            let clientID = try #require(identity?["client_id"], "\(whoami.output)")
            let cleared = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["integrity", "clear", clientID, "--data-directory", directory.appending(path: "data").path]
            )
            #expect(cleared.status == 0 && cleared.output.contains("cleared"), "\(cleared.output)")
            // The running server reads the cleared standing once its five-second cache of the old one lapses.
            try await Task.sleep(for: .seconds(6))
            #expect(try await run(["write", "--type", "n", "a=b"]).status == 0)

            // Something wrong: a keychain that does not open is a FAIL line and exit 1.
            let broken = try await run(["doctor", "--keychain-file", directory.appending(path: "none/k").path] + weigh)
            #expect(broken.status == 1 && broken.output.contains("FAIL keychain"), "\(broken.output)")
        }
    }
}
