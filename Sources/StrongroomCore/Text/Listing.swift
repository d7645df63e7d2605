// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation

/// How both executables print listings: for people, columns under a header; with `--json`, one JSON document.
package enum Listing {
    /// `value` as one JSON document: pretty, keys sorted, dates ISO 8601, slashes unescaped.
    package static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        // Foundation pretty-prints an empty array as "[", a blank line and "]": print it as `[]`.
        return text.allSatisfy({ "[] \n".contains($0) }) ? "[]" : text
    }

    /// The lines of a table, each without its newline: a header row, then one row per item, cells two spaces
    /// apart and padded to their column's width (the last column unpadded). No rows is no lines at all, so an
    /// empty listing is an empty output.
    package static func table(headers: [String], rows: [[String]]) -> [String] {
        guard !rows.isEmpty else { return [] }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return ([headers] + rows).map { row in
            row.enumerated().map { index, cell in
                guard index < row.count - 1, index < widths.count else { return cell }
                return cell + String(repeating: " ", count: max(0, widths[index] - cell.count))
            }
            .joined(separator: "  ")
        }
    }
}
