// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

/// A record's `plain` or `data` as the store keeps it: a JSON object of strings, keys sorted.
func encodeStringMap(_ map: [String: String]) -> String {
    var text = ""
    JSONText.appendStringMap(map, to: &text)
    return text
}

/// A stored JSON object of strings (a record's `plain` and `data` columns), read with `JSONSerialization`:
/// `JSONDecoder`'s set-up costs more than the parse of a small object, and every record read pays it.
func decodeStringMap(_ text: String) throws -> [String: String] {
    guard let map = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a JSON object of strings"))
    }
    return map
}
