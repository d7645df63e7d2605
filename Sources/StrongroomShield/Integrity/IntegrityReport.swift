// Strongroom — SPDX-License-Identifier: Apache-2.0

public import Foundation
import StrongroomCore
public import StrongroomWire

/// The result of ``Integrity/check(_:checks:policy:)``: a verdict, the findings behind it, and when and how it
/// was made.
public struct IntegrityReport: Sendable, Hashable, Codable {
    /// The heaviest severity found.
    public var verdict: IntegrityVerdict
    /// Every finding, informational ones included, in check order.
    public var findings: [IntegrityFinding]
    /// The checks that ran, by name.
    public var checks: [String]
    /// When the checks ran (Unix seconds).
    public var checkedAt: Int64
    /// How long they took, in microseconds.
    public var durationMicroseconds: Int64
    /// The platform (`linux-x86_64`).
    public var platform: String

    /// Creates a report.
    public init(
        verdict: IntegrityVerdict,
        findings: [IntegrityFinding],
        checks: [String],
        checkedAt: Int64,
        durationMicroseconds: Int64,
        platform: String = IntegrityReport.currentPlatform
    ) {
        self.verdict = verdict
        self.findings = findings
        self.checks = checks
        self.checkedAt = checkedAt
        self.durationMicroseconds = durationMicroseconds
        self.platform = platform
    }

    /// The findings of `kind`.
    public func findings(_ kind: IntegrityFinding.Kind) -> [IntegrityFinding] {
        findings.filter { $0.kind == kind }
    }

    /// Whether a finding of `kind` is in the report.
    public func contains(_ kind: IntegrityFinding.Kind) -> Bool { findings.contains { $0.kind == kind } }

    /// This platform's name.
    public static var currentPlatform: String {
        #if os(Linux)
        let system = "linux"
        #elseif os(macOS)
        let system = "macos"
        #else
        let system = "other"
        #endif
        #if arch(x86_64)
        return system + "-x86_64"
        #elseif arch(arm64)
        return system + "-arm64"
        #else
        return system
        #endif
    }

    /// The report as JSON (sorted keys, snake case), as the CLI prints it and the check-in sends it.
    public func jsonRepresentation() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return (try? encoder.encode(self)) ?? Data("{}".utf8)  // plain values: encoding cannot fail
    }

    /// A report read back from ``jsonRepresentation()`` (at most 256 KiB and 256 findings).
    public init(jsonRepresentation data: Data) throws(ShieldError) {
        guard data.count <= 256 << 10 else { throw ShieldError(.invalidFormat, "the report is larger than 256 KiB") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            self = try decoder.decode(IntegrityReport.self, from: data)
        } catch {
            throw ShieldError(.invalidFormat, "the report is not valid JSON", underlying: error)
        }
        guard findings.count <= 256, checks.count <= 64 else {
            throw ShieldError(.invalidFormat, "the report has too many findings or checks")
        }
    }
}
