// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Prints `value` as one JSON document (``Listing/json(_:)``): what every listing prints with `--json`.
func printJSON(_ value: some Encodable) throws { print(try Listing.json(value)) }

/// Prints a listing as columns under `headers` (nothing when there are no rows).
func printTable(_ headers: [String], _ rows: [[String]]) {
    Listing.table(headers: headers, rows: rows).forEach { print($0) }
}
