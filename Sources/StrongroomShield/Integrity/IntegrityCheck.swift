// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One integrity check: a small type that looks at one aspect of the environment and reports what it saw.
///
/// A check never throws and never stops the process: what it cannot read is a ``IntegrityFinding/Kind/checkUnavailable``
/// observation, and what it finds is weighed later by the ``GradingPolicy``. Checks only read (files under `/proc`,
/// `stat`, `getrlimit`); they are quick enough to run at every launch.
public protocol IntegrityCheck: Sendable {
    /// A stable name for reports (`tracer`, `preload`, …).
    var name: String { get }
    /// What the check sees in `context`.
    func observe(_ context: IntegrityContext) -> [IntegrityObservation]
}
