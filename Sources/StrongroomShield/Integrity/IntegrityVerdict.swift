// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The grade of an integrity report: never a bare boolean.
public enum IntegrityVerdict: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Nothing suspicious or compromising was found (informational findings may be listed).
    case clean
    /// Something weakens the environment (root, a preload variable, an exposed file, clock skew): go on with care.
    case suspicious
    /// The process is being observed or altered (a tracer, hidden preload, instrumentation, a modified binary).
    case compromised

    private var rank: Int {
        switch self {
        case .clean: 0
        case .suspicious: 1
        case .compromised: 2
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// The verdict a finding of `severity` forces at least.
    public init(_ severity: IntegrityFinding.Severity) {
        switch severity {
        case .informational: self = .clean
        case .suspicious: self = .suspicious
        case .compromised: self = .compromised
        }
    }
}
