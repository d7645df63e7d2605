// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import NIOCore
import StrongroomBackend
import StrongroomCrypto
import StrongroomShield
import StrongroomTransport
import StrongroomWire
import Testing

/// The backend's policy on the device's integrity verdict: evidence signed by the request's signer, recent, and
/// graded no worse than allowed.
@Suite struct IntegrityVerdictTests {
    private static func report(
        _ verdict: IntegrityVerdict,
        findings: [IntegrityFinding] = [],
        age: TimeInterval = 0
    ) -> IntegrityReport {
        IntegrityReport(
            verdict: verdict,
            findings: findings,
            checks: ["tracer"],
            checkedAt: Int64(Date().timeIntervalSince1970 - age),
            durationMicroseconds: 10
        )
    }

    @Test("a recent clean report signed by the request's signer passes; compromised, stale, lent or missing: 403")
    func policy() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            func pay(_ evidence: String?) async throws -> SecureChannel.Response {
                var request = HTTPRequest.backend(.post, port, "/v1/pay")
                if let evidence { request.headerFields[HTTPField.Name(IntegrityEvidence.headerName)!] = evidence }
                return try await channel.send(request)
            }
            let clean = IntegrityEvidence(report: Self.report(.clean), signingKey: fixture.signingKey)
            let accepted = try await pay(clean.headerValue)
            #expect(accepted.status == .ok && String(buffer: accepted.body) == "clean")

            let tracer = IntegrityFinding(kind: .tracerAttached, severity: .compromised, summary: "traced")
            // A report that grades itself clean while listing a compromising finding is still compromised.
            let lying = IntegrityEvidence(
                report: Self.report(.clean, findings: [tracer]),
                signingKey: fixture.signingKey
            )
            let refused = try await pay(lying.headerValue)
            #expect(refused.status == .forbidden)
            #expect(String(buffer: refused.body).contains("compromised: tracer-attached"))

            let stale = IntegrityEvidence(report: Self.report(.clean, age: 3600), signingKey: fixture.signingKey)
            #expect(try await pay(stale.headerValue).status == .forbidden)
            // Hostile times: the far past and the far future are refused, not a crash.
            for checkedAt in [Int64.min, Int64.max] {
                var hostile = Self.report(.clean)
                hostile.checkedAt = checkedAt
                let evidence = IntegrityEvidence(report: hostile, signingKey: fixture.signingKey)
                #expect(try await pay(evidence.headerValue).status == .forbidden, "\(checkedAt)")
            }
            let vm = IntegrityFinding(kind: .virtualization, severity: .informational, summary: "a VM")
            let virtual = IntegrityEvidence(report: Self.report(.clean, findings: [vm]), signingKey: fixture.signingKey)
            #expect(try await pay(virtual.headerValue).status == .forbidden)
            // Another user's clean report, or none.
            let lent = IntegrityEvidence(report: Self.report(.clean), signingKey: SigningPrivateKey())
            #expect(try await pay(lent.headerValue).status == .forbidden)
            #expect(try await pay(nil).status == .forbidden)
            #expect(try await pay("v1.not.evidence").status == .forbidden)
            // Far past any header limit: refused (an answer other than 200, or the connection closed).
            let oversized = try? await pay(String(repeating: "x", count: 500 << 10))
            #expect(oversized?.status != .ok)
        }
    }
}
