// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomWire

/// How findings are weighed: data, not code. The verdict is the heaviest severity among the findings.
///
/// The default table (``default``):
///
/// | finding | severity |
/// |---|---|
/// | `tracer-attached`, `debugger-parent`, `preload-hidden`, `instrumentation`, `executable-modified`, `executable-unlisted`, `manifest-invalid` | compromised |
/// | `preload-variable`, `preload-file`, `executable-writable`, `running-as-root`, `effective-capabilities`, `core-dumps`, `file-exposed`, `clock-skew` | suspicious |
/// | `manifest-missing`, `virtualization`, `check-unavailable`, anything unknown | informational |
///
/// An app changes a row with ``setting(_:to:)``, for example to accept root inside its own container image.
public struct GradingPolicy: Sendable, Hashable, Codable {
    /// Each finding's severity; a finding not listed is informational.
    public var severities: [IntegrityFinding.Kind: IntegrityFinding.Severity]

    /// A policy from its table.
    public init(severities: [IntegrityFinding.Kind: IntegrityFinding.Severity]) {
        self.severities = severities
    }

    /// The default table above.
    public static let `default` = GradingPolicy(
        severities: [
            .tracerAttached: .compromised, .debuggerParent: .compromised, .preloadHidden: .compromised,
            .instrumentation: .compromised, .executableModified: .compromised, .executableUnlisted: .compromised,
            .manifestInvalid: .compromised,
            .preloadVariable: .suspicious, .preloadFile: .suspicious, .executableWritable: .suspicious,
            .runningAsRoot: .suspicious, .effectiveCapabilities: .suspicious, .coreDumps: .suspicious,
            .fileExposed: .suspicious, .clockSkew: .suspicious,
            .manifestMissing: .informational, .virtualization: .informational, .checkUnavailable: .informational,
        ]
    )

    /// The severity of `kind` under this policy.
    public func severity(of kind: IntegrityFinding.Kind) -> IntegrityFinding.Severity {
        severities[kind] ?? .informational
    }

    /// This policy with `kind` weighed as `severity`.
    public func setting(_ kind: IntegrityFinding.Kind, to severity: IntegrityFinding.Severity) -> GradingPolicy {
        var copy = self
        copy.severities[kind] = severity
        return copy
    }

    /// The findings for `observations`, and the verdict they make.
    public func grade(_ observations: [IntegrityObservation]) -> (IntegrityVerdict, [IntegrityFinding]) {
        let findings = observations.map {
            IntegrityFinding(kind: $0.kind, severity: severity(of: $0.kind), summary: $0.summary, evidence: $0.evidence)
        }
        let verdict = findings.map { IntegrityVerdict($0.severity) }.max() ?? .clean
        return (verdict, findings)
    }
}
