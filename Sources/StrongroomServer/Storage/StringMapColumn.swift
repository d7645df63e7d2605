// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomWire

/// A record's `plain` or `data` as the store keeps it: a JSON object of strings, keys sorted.
func encodeStringMap(_ map: [String: String]) -> String {
    var text = ""
    JSONText.appendStringMap(map, to: &text)
    return text
}

/// A stored JSON object of strings (a record's `plain` and `data` columns).
///
/// Every record read pays for this, so the common shape — what ``encodeStringMap(_:)`` writes for strings that
/// need no escapes — is read in place by ``PlainJSONScanner``; anything else (an escape, a control character, a
/// repeated key, bytes that are not UTF-8) goes to `JSONSerialization`, which decides (`JSONDecoder`'s set-up costs
/// more than the parse of a small object).
func decodeStringMap(_ text: String) throws -> [String: String] {
    var text = text
    let plain = text.withUTF8 { bytes -> [String: String]? in
        var scanner = PlainJSONScanner(bytes)
        guard let map = scanner.stringMap(), scanner.isAtEnd else { return nil }
        return map
    }
    if let plain { return plain }
    guard let map = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a JSON object of strings"))
    }
    return map
}
