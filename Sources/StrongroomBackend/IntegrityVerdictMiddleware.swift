// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import StrongroomCore
public import StrongroomShield
public import StrongroomWire

/// Applies a policy to the device's integrity verdict: every request it guards carries an `IntegrityEvidence`
/// header (`Strongroom-Integrity`, a report from the Strongroom shield signed with the request's TSV1 key), recent
/// enough and graded no worse than the policy allows. Put it after ``TSV1SignatureMiddleware``: the evidence must be
/// signed by the key that signed the request, so one user's clean report cannot vouch for another's device.
///
/// A refused verdict is 403 with the reason (the app can tell its user what to fix); missing or unverifiable
/// evidence is 403 as well. The verified report is in `context.caller.integrity`.
public struct IntegrityVerdictMiddleware<Context: SecureBackendRequestContext>: RouterMiddleware {
    /// What a backend accepts.
    public struct Policy: Sendable {
        /// The worst verdict accepted (the report's, raised to its heaviest finding).
        public var worstAccepted: IntegrityVerdict
        /// How old a report may be, by its `checkedAt` against this server's clock.
        public var maximumAge: Duration
        /// Findings refused whatever their severity (a `virtualization` finding for a banking backend, say).
        public var refusedFindings: Set<IntegrityFinding.Kind>

        /// Accepts clean reports (or suspicious ones, if `worstAccepted` says so) at most `maximumAge` old.
        public init(
            worstAccepted: IntegrityVerdict = .clean,
            maximumAge: Duration = .seconds(300),
            refusedFindings: Set<IntegrityFinding.Kind> = []
        ) {
            self.worstAccepted = worstAccepted
            self.maximumAge = maximumAge
            self.refusedFindings = refusedFindings
        }
    }

    let policy: Policy
    let now: @Sendable () -> Date

    /// Checks evidence against `policy`.
    public init(policy: Policy = .init(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.now = now
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let signer = context.caller.signer else {
            throw refuse("integrity evidence needs a TSV1-signed request (add TSV1SignatureMiddleware first)", context)
        }
        guard let name = HTTPField.Name(IntegrityEvidence.headerName), let header = request.headers[name] else {
            throw refuse("the request carries no integrity evidence", context)
        }
        let evidence: IntegrityEvidence
        do throws(ShieldError) {
            evidence = try IntegrityEvidence(headerValue: header, signedBy: signer.publicKey)
        } catch {
            throw refuse("the integrity evidence does not verify: \(error.message)", context)
        }
        let report = evidence.report
        let age = now().timeIntervalSince1970 - Double(report.checkedAt)  // floating point: no overflow
        guard age <= Double(policy.maximumAge.components.seconds), age >= -60 else {
            // (No integer conversion: a hostile `checkedAt` such as Int64.min makes `age` larger than any Int.)
            throw refuse("the integrity report is not recent (checked \(String(format: "%.0f", age)) s ago)", context)
        }
        // The stated verdict, never lower than the heaviest finding (a report cannot grade itself down).
        let verdict = report.verdict.raised(to: report.findings.map(\.severity))
        guard verdict <= policy.worstAccepted else {
            let kinds = report.findings.filter { $0.severity != .informational }.map(\.kind.rawValue)
            throw refuse(
                "the device's integrity verdict is \(verdict.rawValue): \(kinds.joined(separator: ", "))",
                context
            )
        }
        if let refused = report.findings.first(where: { policy.refusedFindings.contains($0.kind) }) {
            throw refuse("the device reports \(refused.kind.rawValue), which this service refuses", context)
        }
        var context = context
        context.caller.integrity = report
        return try await next(request, context)
    }

    private func refuse(_ reason: String, _ context: Context) -> HTTPError {
        context.logger.info("integrity evidence refused", metadata: ["reason": .string(reason)])
        return HTTPError(.forbidden, message: reason)
    }
}
