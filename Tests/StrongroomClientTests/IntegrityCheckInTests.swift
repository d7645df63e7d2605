// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomClientShield
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield
import StrongroomTesting
import StrongroomWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A check that always sees what it was given: makes a report's verdict deterministic wherever the tests run.
private struct FixedCheck: IntegrityCheck {
    let observations: [IntegrityObservation]
    var name: String { "fixed" }
    func observe(_ context: IntegrityContext) -> [IntegrityObservation] { observations }
}

/// Check-in against the real server on both engines: registration bound to the E3DB client, signed reports, the
/// refusal policy, forged and replayed reports, the admin history, and the history after a restart.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct IntegrityCheckInTests {
    @Test(
        "a compromised report holds the client (integrity_refused) through clean reports and new instances until an administrator clears it; others unaffected",
        arguments: TestEngine.available
    )
    func refusalPolicy(engine: TestEngine) async throws {
        try await withTemporaryDirectory { folder in
            let adminToken = "admin-" + String(repeating: "x", count: 40)
            let tokenFile = folder.appending(path: "admin-token")
            try Data((adminToken + "\n").utf8).write(to: tokenFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
            let arguments = [
                "--registration-token", ClientTestServer.registrationToken, "--refuse-integrity", "compromised",
                "--admin-token-file", tokenFile.path,
            ]
            try await ServerProcess.withServer(engine: engine, arguments: arguments) { server, storage in
                let url = try #require(URL(string: server.baseURL))
                let good = try await ClientTestServer.client(url, "good")
                let bad = try await ClientTestServer.client(url, "bad")
                let keychain = Keychain.inMemory()

                let clean = Shield(keychain: keychain, server: good, checks: [], hardens: false)
                let goodReport = try await clean.start()
                #expect(goodReport.verdict == .clean && clean.instanceID != nil)

                let tracer = FixedCheck(observations: [IntegrityObservation(.tracerAttached, "test tracer")])
                let compromised = Shield(keychain: keychain, server: bad, checks: [tracer], hardens: false)
                #expect(try await compromised.start().verdict == .compromised)
                let instance = try #require(compromised.instanceID)
                let refused = await #expect(throws: ClientError.self) {
                    try await bad.write(type: "notes", data: ["a": "b"])
                }
                #expect(refused?.code == .integrityRefused)
                _ = try await good.write(type: "notes", data: ["a": "b"])  // another client is unaffected

                // A later launch (same keychain: same instance, no new registration) checks in clean again, and a
                // new instance (another keychain) checks in clean: the client stays held either way.
                let relaunched = Shield(keychain: keychain, server: bad, checks: [], hardens: false)
                #expect(try await relaunched.start().verdict == .clean)
                #expect(relaunched.instanceID == instance)
                let fresh = Shield(keychain: Keychain.inMemory(), server: bad, checks: [], hardens: false)
                #expect(try await fresh.start().verdict == .clean)
                #expect(fresh.instanceID != instance)
                let stillRefused = await #expect(throws: ClientError.self) {
                    try await bad.write(type: "notes", data: ["a": "b"])
                }
                #expect(stillRefused?.code == .integrityRefused)

                // Only an administrator lifts the hold: the admin route (the CLI's `integrity clear` is tested
                // against the same store below).
                let badID = bad.configuration.clientID.uuidString.lowercased()
                #expect(
                    try await adminPost(server.baseURL, "/v1/admin/integrity/\(badID)/clear", token: adminToken) == 200
                )
                #expect(
                    try await adminPost(server.baseURL, "/v1/admin/integrity/\(badID)/clear", token: adminToken) == 404
                )
                #expect(try await adminPost(server.baseURL, "/v1/admin/integrity/\(badID)/clear", token: "x") == 401)
                _ = try await bad.write(type: "notes", data: ["a": "b"])

                // The fraud-management view: admin token required.
                let history = try await adminHistory(server.baseURL, token: adminToken, client: bad)
                #expect(history.map(\.verdict) == [.clean, .clean, .compromised] as [IntegrityVerdict])
                #expect(history.last?.findings == ["tracer-attached:compromised"])
                #expect(history.filter { $0.instanceID == instance }.count == 2)
                await #expect(throws: (any Error).self) {
                    try await adminHistory(server.baseURL, token: "wrong-" + adminToken, client: bad)
                }

                // The history survives a restart, and the server's own command shows it.
                server.stop()
                let shown = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: ["integrity", "show", bad.configuration.clientID.uuidString] + storage
                )
                #expect(shown.status == 0, "\(shown.output)")
                let lines = shown.output.split(separator: "\n").filter { $0.contains(instance) }
                #expect(lines.count == 2 && lines.last?.contains("compromised") == true, "\(shown.output)")
                let restarted = try await ServerProcess(arguments: storage + arguments)
                defer { if restarted.isRunning { restarted.stop() } }
                let after = try await adminHistory(restarted.baseURL, token: adminToken, client: bad)
                #expect(after == history)

                // Compromised again (through the restarted server), then cleared by the server's own command; a
                // second clear finds nothing left.
                let restartedClient = try await ClientTestServer.client(
                    try #require(URL(string: restarted.baseURL)),
                    "bad-again"
                )
                let second = Shield(
                    keychain: Keychain.inMemory(),
                    server: restartedClient,
                    checks: [tracer],
                    hardens: false
                )
                #expect(try await second.start().verdict == .compromised)
                let heldID = restartedClient.configuration.clientID.uuidString.lowercased()
                restarted.stop()
                let cleared = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: ["integrity", "clear", heldID] + storage
                )
                #expect(cleared.status == 0 && cleared.output.contains("cleared \(heldID)"), "\(cleared.output)")
                let nothing = try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: ["integrity", "clear", heldID] + storage
                )
                #expect(nothing.output.contains("no integrity verdict"), "\(nothing.output)")
            }
        }
    }

    @Test("forged, tampered and replayed reports are refused; an instance is bound to the client that registered it")
    func forgedAndReplayed() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url, "checker")
            let other = try await ClientTestServer.client(url, "other")
            let key = SigningPrivateKey()
            let instance = UUID().uuidString.lowercased()
            let registration = IntegrityInstanceRequest(
                instanceID: instance,
                publicKey: key.publicKey.base64URLEncoded,
                name: "test"
            )
            _ = try await client.registerIntegrityInstance(registration)
            _ = try await client.registerIntegrityInstance(registration)  // idempotent
            // The same instance ID for another client, or with another key: 409.
            let stolen = await #expect(throws: ClientError.self) {
                try await other.registerIntegrityInstance(registration)
            }
            #expect(stolen?.code == .conflict)

            let report = Array(Integrity.check(checks: []).jsonRepresentation())
            func request(
                signingKey: SigningPrivateKey,
                nonce: String,
                signed: [UInt8]? = nil
            ) -> IntegrityCheckInRequest {
                let bytes = IntegrityCheckInRequest.signedBytes(
                    clientID: client.integrityClientID,
                    instanceID: instance,
                    nonce: nonce,
                    report: signed ?? report
                )
                return IntegrityCheckInRequest(
                    instanceID: instance,
                    nonce: nonce,
                    report: Base64URL.encode(report),
                    signature: Base64URL.encode(signingKey.signature(for: bytes))
                )
            }
            let forged = await #expect(throws: ClientError.self) {
                try await client.checkInIntegrityReport(
                    request(signingKey: SigningPrivateKey(), nonce: try await client.integrityChallenge().nonce)
                )
            }
            #expect(forged?.code == .forbidden)
            let tampered = await #expect(throws: ClientError.self) {
                let nonce = try await client.integrityChallenge().nonce
                return try await client.checkInIntegrityReport(
                    request(signingKey: key, nonce: nonce, signed: Array(#"{"verdict":"clean"}"#.utf8))
                )
            }
            #expect(tampered?.code == .forbidden)

            let genuine = request(signingKey: key, nonce: try await client.integrityChallenge().nonce)
            let answer = try await client.checkInIntegrityReport(genuine)
            #expect(answer.verdict == .clean && !answer.refused)
            let replayed = await #expect(throws: ClientError.self) { try await client.checkInIntegrityReport(genuine) }
            #expect(replayed?.code == .forbidden)
            // Another client cannot report for this instance, even with a valid challenge of its own.
            let foreign = await #expect(throws: ClientError.self) {
                try await other.checkInIntegrityReport(
                    request(signingKey: key, nonce: try await other.integrityChallenge().nonce)
                )
            }
            #expect(foreign?.code == .forbidden)
        }
    }

    @Test("bounded per client: 64 instances (then 429), 16 outstanding challenges (an older one is dropped)")
    func bounds() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url, "bounded")
            func register() async throws {
                _ = try await client.registerIntegrityInstance(
                    IntegrityInstanceRequest(
                        instanceID: UUID().uuidString,
                        publicKey: SigningPrivateKey().publicKey.base64URLEncoded,
                        name: "n"
                    )
                )
            }
            for _ in 0..<64 { try await register() }
            let over = await #expect(throws: ClientError.self) { try await register() }
            #expect(over?.status == 429)

            let key = SigningPrivateKey()
            let instance = UUID().uuidString.lowercased()
            let other = try await ClientTestServer.client(url, "bounded-2")
            _ = try await other.registerIntegrityInstance(
                IntegrityInstanceRequest(instanceID: instance, publicKey: key.publicKey.base64URLEncoded, name: "n")
            )
            let first = try await other.integrityChallenge().nonce
            for _ in 0..<16 { _ = try await other.integrityChallenge() }
            let report = Array(Integrity.check(checks: []).jsonRepresentation())
            let signed = IntegrityCheckInRequest.signedBytes(
                clientID: other.integrityClientID,
                instanceID: instance,
                nonce: first,
                report: report
            )
            let dropped = await #expect(throws: ClientError.self) {
                try await other.checkInIntegrityReport(
                    IntegrityCheckInRequest(
                        instanceID: instance,
                        nonce: first,
                        report: Base64URL.encode(report),
                        signature: Base64URL.encode(key.signature(for: signed))
                    )
                )
            }
            #expect(dropped?.code == .forbidden)
        }
    }

    /// `GET /v1/admin/integrity?client_id=…` with the admin token.
    /// POSTs to an admin route; the HTTP status.
    private func adminPost(_ base: String, _ path: String, token: String) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    private func adminHistory(_ base: String, token: String, client: Client) async throws -> [IntegrityHistoryEntry] {
        let id = client.configuration.clientID.uuidString.lowercased()
        var request = URLRequest(url: try #require(URL(string: "\(base)/v1/admin/integrity?client_id=\(id)")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ClientError(.unauthorized, "admin history refused")
        }
        return try JSONDecoder().decode([IntegrityHistoryEntry].self, from: data)
    }
}
