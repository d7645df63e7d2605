// Strongroom — SPDX-License-Identifier: Apache-2.0

extension Int64 {
    /// `self + other`, clamped to `Int64`'s range instead of trapping.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self * other`, clamped to `Int64`'s range instead of trapping.
    func multipliedSaturating(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension Duration {
    /// Whole microseconds, saturating.
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedSaturating(by: 1_000_000).addingSaturating(attoseconds / 1_000_000_000_000)
    }

    /// Whole seconds (fractions dropped).
    var wholeSeconds: Int64 { components.seconds }
}
