// Strongroom — SPDX-License-Identifier: Apache-2.0

extension Array {
    /// Consecutive slices of at most `size` (≥ 1) elements, in order: requests split to a route's per-call bound.
    package func chunked(into size: Int) -> [ArraySlice<Element>] {
        precondition(size >= 1, "a chunk holds at least one element")
        return stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
