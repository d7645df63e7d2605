// Strongroom — SPDX-License-Identifier: Apache-2.0

extension Int64 {
    /// `self + other`, clamped to `Int64`'s range instead of trapping.
    package func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self * other`, clamped to `Int64`'s range instead of trapping.
    package func multipliedSaturating(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension Duration {
    /// Whole nanoseconds, saturating (for NIO's `TimeAmount` and AsyncHTTPClient's timeouts).
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedSaturating(by: 1_000_000_000).addingSaturating(attoseconds / 1_000_000_000)
    }

    /// Whole microseconds, saturating (E3DB timestamps).
    package var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedSaturating(by: 1_000_000).addingSaturating(attoseconds / 1_000_000_000_000)
    }

    /// Whole seconds (fractions dropped).
    package var wholeSeconds: Int64 { components.seconds }
}
