// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomWire
import Synchronization

/// A grade the server reads from a report: the report's own verdict, raised to its heaviest finding.
public enum IntegrityGrade: String, Sendable, Hashable, Comparable, CaseIterable {
    case clean, suspicious, compromised

    private var rank: Int {
        switch self {
        case .clean: 0
        case .suspicious: 1
        case .compromised: 2
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// The grade a finding's severity forces at least; nil for an unknown word.
    init?(severity: String) {
        switch severity {
        case "informational": self = .clean
        case "suspicious": self = .suspicious
        case "compromised": self = .compromised
        default: return nil
        }
    }

    /// The report's verdict, never lower than its heaviest finding.
    init(_ summary: IntegrityReportSummary) {
        let stated = IntegrityGrade(rawValue: summary.verdict) ?? .compromised
        let heaviest = summary.findings.compactMap { IntegrityGrade(severity: $0.severity) }.max() ?? .clean
        self = max(stated, heaviest)
    }
}

/// The server's integrity policy: which grade refuses a client's requests (`--refuse-integrity`), and the admin
/// token for the history. The newest verdict per client is cached for a few seconds (reports received here update it
/// at once; another instance's within the TTL).
final class IntegrityPolicy: Sendable {
    /// Requests of a client whose newest report is at least this grade fail with `integrity_refused`; nil refuses
    /// none.
    let refusal: IntegrityGrade?
    /// The bearer token of `GET /v1/admin/integrity`; nil disables the route.
    let adminToken: String?
    private let cache = Mutex<[String: (grade: IntegrityGrade?, at: ContinuousClock.Instant)]>([:])
    private static let ttl: Duration = .seconds(5)

    init(refusal: IntegrityGrade?, adminToken: String?) {
        self.refusal = refusal
        self.adminToken = adminToken
    }

    func refuses(_ grade: IntegrityGrade) -> Bool { refusal.map { grade >= $0 } ?? false }

    func recorded(_ grade: IntegrityGrade, for clientID: String) {
        cache.withLock { $0[clientID] = (grade, .now) }
    }

    /// Throws `integrity_refused` when the policy refuses `clientID`'s newest verdict.
    func check(_ clientID: String, store: any ServerStore) async throws {
        guard refusal != nil else { return }
        let now = ContinuousClock.now
        let cached = cache.withLock { cache in cache[clientID].flatMap { now - $0.at < Self.ttl ? $0 : nil } }
        let grade: IntegrityGrade?
        if let cached {
            grade = cached.grade
        } else {
            grade = try await store.latestIntegrityVerdict(clientID: clientID).flatMap(IntegrityGrade.init(rawValue:))
            cache.withLock { cache in
                if cache.count > 100_000 { cache.removeAll() }
                cache[clientID] = (grade, now)
            }
        }
        if let grade, refuses(grade) {
            throw ServerError(.integrityRefused, "this client's last integrity report was \(grade.rawValue)")
        }
    }
}
