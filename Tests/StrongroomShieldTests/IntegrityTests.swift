// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomShield
import StrongroomTesting
import StrongroomWire
import Testing

/// Grading, manifests and reports through the public API (detection itself is tested through the CLI, under real
/// tracers and preloads: `CLIIntegrityTests`).
@Suite struct IntegrityTests {
    @Test("the verdict is the heaviest severity; informational findings do not count; the policy is data")
    func grading() {
        let observations = [
            IntegrityObservation(.virtualization, "container"),
            IntegrityObservation(.runningAsRoot, "root", evidence: ["euid 0"]),
        ]
        let (verdict, findings) = GradingPolicy.default.grade(observations)
        #expect(verdict == .suspicious)
        #expect(findings.map(\.severity) == [.informational, .suspicious])
        let relaxed = GradingPolicy.default.setting(.runningAsRoot, to: .informational)
        #expect(relaxed.grade(observations).0 == .clean)
        #expect(GradingPolicy.default.grade([IntegrityObservation(.tracerAttached, "t")]).0 == .compromised)
        #expect(GradingPolicy.default.grade([]).0 == .clean)
        #expect(GradingPolicy.default.severity(of: .init(rawValue: "unknown-kind")) == .informational)
        // Evidence is bounded.
        let long = IntegrityObservation(
            .fileExposed,
            "x",
            evidence: Array(repeating: String(repeating: "a", count: 2000), count: 40)
        )
        #expect(long.evidence.count == 16 && long.evidence.allSatisfy { $0.utf8.count <= 512 })
    }

    @Test("the policy round-trips as JSON keyed by finding name")
    func policyJSON() throws {
        let data = try JSONEncoder().encode(GradingPolicy.default)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""tracer-attached":"compromised""#))
        #expect(try JSONDecoder().decode(GradingPolicy.self, from: data) == GradingPolicy.default)
    }

    @Test("a check of this process returns a report whatever it finds, with every check named and timed")
    func checkRuns() throws {
        let report = Integrity.check()
        #expect(report.checks.count == Integrity.defaultChecks.count)
        #expect(report.durationMicroseconds >= 0)
        #expect(report.contains(.manifestMissing))
        let back = try IntegrityReport(jsonRepresentation: report.jsonRepresentation())
        #expect(back == report)
        #expect(throws: ShieldError.self) { try IntegrityReport(jsonRepresentation: Data("{".utf8)) }
        #expect(throws: ShieldError.self) { try IntegrityReport(jsonRepresentation: Data(count: 300_000)) }
    }

    @Test("clock skew beyond the allowance is suspicious; within it, nothing")
    func clockSkew() {
        let now = Date()
        let skewed = IntegrityContext(serverTime: now.addingTimeInterval(-600), localTime: now)
        #expect(ClockSkewCheck().observe(skewed).map(\.kind) == [.clockSkew])
        let fine = IntegrityContext(serverTime: now.addingTimeInterval(30), localTime: now)
        #expect(ClockSkewCheck().observe(fine).isEmpty)
        // A hostile server time far outside any clock is a finding, never an overflow.
        let hostile = IntegrityContext(serverTime: Date(timeIntervalSince1970: TimeInterval(Int64.max)), localTime: now)
        #expect(ClockSkewCheck().observe(hostile).map(\.kind) == [.clockSkew])
    }

    @Test("manifests: signed, verified, tampered, another signer, malformed")
    func manifests() async throws {
        try await withTemporaryDirectory { folder in
            let binary = folder.appending(path: "app")
            try Data("binary".utf8).write(to: binary)
            let key = SigningPrivateKey()
            let manifest = try ExecutableManifest(executables: [binary])
            // The same digest as sha256sum.
            #expect(manifest.digests["app"] == "9a3a45d01531a20e89ac6ae10b0b0beb0492acd7216a368aa062d1a5fecaf9cd")
            let shipped = manifest.signed(with: key).jsonRepresentation()
            let read = try SignedExecutableManifest(jsonRepresentation: shipped)
            #expect(try read.verified(with: key.publicKey) == manifest)
            let other = #expect(throws: ShieldError.self) { try read.verified(with: SigningPrivateKey().publicKey) }
            #expect(other?.code == .invalidManifest)
            var body = read.body
            body[body.count - 2] ^= 0x01
            let tampered = SignedExecutableManifest(body: body, signature: read.signature)
            #expect(throws: ShieldError.self) { try tampered.verified(with: key.publicKey) }
            #expect(throws: ShieldError.self) { try SignedExecutableManifest(jsonRepresentation: Data("[]".utf8)) }

            // The executable check against it: this file verifies; a changed one does not.
            let signed = manifest.signed(with: key)
            let ok = ExecutableCheck().observe(IntegrityContext(manifest: (signed, key.publicKey), executable: binary))
            #expect(ok.isEmpty)
            try Data("patched".utf8).write(to: binary)
            let bad = ExecutableCheck().observe(IntegrityContext(manifest: (signed, key.publicKey), executable: binary))
            #expect(bad.map(\.kind) == [.executableModified])
        }
    }
}
