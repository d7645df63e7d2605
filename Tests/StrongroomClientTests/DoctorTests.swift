// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomClientShield
import StrongroomCore
import StrongroomCrypto
import StrongroomShield
import StrongroomTesting
import StrongroomWire
import Testing

/// The health check as a library call (what `strongroom doctor` prints), against the real server.
@Suite struct DoctorTests {
    private struct Locked: Error, CustomStringConvertible {
        var description: String { "the keychain is locked" }
    }

    @Test("a registered client on a live server: each aspect reports what it verified; a failing keychain fails alone")
    func liveServer() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url)
            let report = await Doctor(
                client: client,
                keychain: { "unlocked: test keychain" },
                integrity: { _ in (IntegrityContext(), .default) }
            ).run()
            #expect(report.checks.map(\.aspect) == HealthCheck.Aspect.allCases)
            for aspect: HealthCheck.Aspect in [.server, .pins, .registered, .clock, .certificate, .keychain] {
                #expect(report[aspect]?.passed == true, "\(aspect): \(report[aspect]?.detail ?? "missing")")
            }
            #expect(report[.registered]?.detail == "client \(ClientID(client.configuration.clientID).description)")
            #expect(report[.server]?.detail.contains("plain HTTP") == true)
            #expect(report[.keychain]?.detail == "unlocked: test keychain")

            let locked = await Doctor(client: client, keychain: { throw Locked() }).run()
            #expect(locked[.keychain]?.passed == false && locked[.keychain]?.detail == "the keychain is locked")
            #expect(locked[.registered]?.passed == true && locked[.integrity] == nil && !locked.isHealthy)
        }
    }

    @Test("a server that is not there: the server check fails with the reason, the clock says it was not checked")
    func unreachable() async throws {
        let refusing = try SilentListener(listening: false)
        let configuration = try await {
            try await ClientTestServer.run(engine: .sqlite) { url in
                try await Client.register(token: ClientTestServer.registrationToken, clientName: "gone", apiURL: url)
            }
        }()
        var moved = configuration
        moved.apiURL = try #require(URL(string: "http://127.0.0.1:\(refusing.port)"))
        let report = await Doctor(client: Client(configuration: moved)).run()
        #expect(report[.server]?.passed == false)
        #expect(report[.registered]?.passed == false)
        #expect(report[.clock]?.passed == false && report[.clock]?.isChecked == false)
        #expect(report[.clock]?.detail == "the server was not reached")
        #expect(report[.keychain] == nil && !report.isHealthy)
    }
}
