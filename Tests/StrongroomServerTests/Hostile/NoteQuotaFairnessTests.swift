// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomServer
import StrongroomTesting
import Testing

/// Anonymous notes (issue 72, item 8): fresh signing keys cost nothing, so the server's note quota is shared fairly —
/// anonymous writers from one source address (an IPv6 /64) keep at most `--notes-per-source`, anonymous writers
/// together at most half the server's notes, and registered clients always find the other half. Real server binary.
@Suite struct NoteQuotaFairnessTests {
    static func anonymous(_ http: HTTP) async throws -> Int {
        let key = SigningPrivateKey()
        return try await http.raw(
            "POST",
            "/v2/storage/notes",
            authorization: HostileRequests.anonymousNoteHeader(writer: key),
            body: HostileRequests.noteBody(writer: key, maxViews: "-1")
        )
    }

    static func registered(_ http: HTTP, _ client: HTTP.Client) async throws -> Int {
        try await http.raw(
            "POST",
            "/v2/storage/notes",
            authorization: TSV1.authorization(
                for: .init(method: "POST", path: "/v2/storage/notes"),
                clientID: client.id,
                signingKey: client.keys.signingKey
            ),
            body: HostileRequests.noteBody(writer: client.keys.signingKey, maxViews: "-1")
        )
    }

    @Test(
        "strangers with fresh keys cannot lock registered clients out of notes: per source, and half the server",
        arguments: TestEngine.available
    )
    func fairness(engine: TestEngine) async throws {
        for (perSource, anonymousAdmitted) in [(3, 3), (100, 5)] {
            let arguments = [
                "--registration-token", "notes", "--notes-total", "10", "--notes-per-source", "\(perSource)",
            ]
            try await ServerProcess.withServer(engine: engine, arguments: arguments) { server, _ in
                let http = HTTP(base: server.baseURL)
                let client = try await http.register(token: "notes")
                var statuses: [Int] = []
                for _ in 0..<12 { statuses.append(try await Self.anonymous(http)) }
                #expect(statuses.filter { $0 == 201 }.count == anonymousAdmitted, "\(statuses)")
                #expect(statuses.filter { $0 == 429 }.count == 12 - anonymousAdmitted, "\(statuses)")
                // The registered client writes the rest of the server's room.
                var mine: [Int] = []
                for _ in 0..<(10 - anonymousAdmitted) { mine.append(try await Self.registered(http, client)) }
                #expect(mine.allSatisfy { $0 == 201 }, "\(mine)")
                #expect(try await Self.registered(http, client) == 429, "the server's total still holds")
            }
        }
    }

    @Test("an IPv6 source counts by its /64; an IPv4 one whole")
    func sourceKeys() {
        #expect(NoteSource.key(for: "192.0.2.7") == "192.0.2.7")
        #expect(NoteSource.key(for: "2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(NoteSource.key(for: "2001:db8:1:2:bbbb:cccc:dddd:eeee") == "2001:db8:1:2::/64")
        #expect(NoteSource.key(for: "2001:db8::1") == "2001:db8:0:0::/64")
        #expect(NoteSource.key(for: "::1") == "0:0:0:0::/64")
    }
}
