// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// The local clock against the server's (``IntegrityContext/serverTime``, from the check-in challenge): tokens,
/// certificates and signatures all depend on it.
public struct ClockSkewCheck: IntegrityCheck {
    public init() {}
    public var name: String { "clock-skew" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        guard let server = context.serverTime else { return [] }
        let skew = context.localTime.timeIntervalSince(server)
        let allowed = Double(context.allowedClockSkew.components.seconds)
        guard abs(skew) > allowed else { return [] }
        return [
            IntegrityObservation(
                .clockSkew,
                // Formatted, never converted to Int: a hostile server time would overflow the conversion.
                "the local clock is \(String(format: "%.0f", abs(skew))) s \(skew > 0 ? "ahead of" : "behind") the server's",
                evidence: [String(format: "skew %.0f s", skew), String(format: "allowed %.0f s", allowed)]
            )
        ]
    }
}
