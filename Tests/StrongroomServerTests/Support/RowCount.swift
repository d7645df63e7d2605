// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomServerTesting
import StrongroomTesting

/// The number of rows in `table` of the PostgreSQL database at `url` (read with `psql`).
func rowCount(_ table: String, in url: String) async throws -> Int {
    let outcome = try await ExternalProcess.run(
        URL(fileURLWithPath: "/usr/bin/psql"),
        arguments: [url, "-tAc", "SELECT count(*) FROM \(table)"]
    )
    guard outcome.status == 0, let count = Int(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw TestFailure("psql: \(outcome.output)")
    }
    return count
}
