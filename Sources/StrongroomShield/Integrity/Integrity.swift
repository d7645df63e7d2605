// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Environment-integrity checks in the spirit of T.A.K and freeRASP, for Linux: a graded report, never a bare
/// boolean and never a crash on detection.
///
/// ```swift
/// let report = Integrity.check(IntegrityContext(protectedFiles: [Keychain.defaultURL]))
/// switch report.verdict {
/// case .clean: break
/// case .suspicious: log(report.findings)
/// case .compromised: refuseToWork()
/// }
/// ```
public enum Integrity {
    /// Every check, in report order.
    public static let defaultChecks: [any IntegrityCheck] = [
        TracerCheck(), DebuggerParentCheck(), PreloadCheck(), InstrumentationCheck(), ExecutableCheck(),
        PrivilegeCheck(), CoreDumpCheck(), FilePermissionCheck(), VirtualizationCheck(), ClockSkewCheck(),
    ]

    /// Runs `checks` in `context` and grades what they saw with `policy`.
    public static func check(
        _ context: IntegrityContext = IntegrityContext(),
        checks: [any IntegrityCheck] = defaultChecks,
        policy: GradingPolicy = .default
    ) -> IntegrityReport {
        let clock = ContinuousClock()
        let started = clock.now
        let observations = checks.flatMap { $0.observe(context) }
        let elapsed = clock.now - started
        let (verdict, findings) = policy.grade(observations)
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        return IntegrityReport(
            verdict: verdict,
            findings: findings,
            checks: checks.map(\.name),
            checkedAt: Int64(context.localTime.timeIntervalSince1970),
            durationMicroseconds: micros
        )
    }
}
