// Strongroom — SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import StrongroomCore

/// The work one search may do: every value a term is compared with, and every record examined, is charged
/// against it; a search that runs out is refused with a 400 instead of occupying the server.
struct SearchBudget: Sendable {
    /// What an exhausted budget answers.
    static let exhausted = ServerError(
        .searchTooBroad,
        "the search examines too much data; narrow it with content_types, writer_ids or a range"
    )

    private(set) var remaining: Int

    init(units: Int) { remaining = units }

    /// Charges `units`; throws ``exhausted`` when the budget is spent.
    mutating func charge(_ units: Int) throws {
        guard units < remaining else {
            remaining = 0
            throw Self.exhausted
        }
        remaining -= units
    }
}
