// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

/// A record's `plain` or `data` as the store keeps it: a JSON object of strings, keys sorted.
func encodeStringMap(_ map: [String: String]) -> String {
    var text = ""
    JSONText.appendStringMap(map, to: &text)
    return text
}

/// A stored JSON object of strings (a record's `plain` and `data` columns).
///
/// Every record read pays for this, so the common shape — what ``encodeStringMap(_:)`` writes for strings that
/// need no escapes — is read in place; anything else (an escape, a control character, whitespace, a repeated key,
/// bytes that are not UTF-8) goes to `JSONSerialization`, which decides (`JSONDecoder`'s set-up costs more than the
/// parse of a small object).
func decodeStringMap(_ text: String) throws -> [String: String] {
    var text = text
    if let map = text.withUTF8(plainStringMap) { return map }
    guard let map = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a JSON object of strings"))
    }
    return map
}

/// `{"key":"value",…}` with no whitespace and strings free of `\` and control characters, or nil for any other
/// text (which may still be valid JSON).
private func plainStringMap(_ utf8: UnsafeBufferPointer<UInt8>) -> [String: String]? {
    let quote = UInt8(ascii: "\""), count = utf8.count
    guard count >= 2, utf8[0] == UInt8(ascii: "{"), utf8[count - 1] == UInt8(ascii: "}") else { return nil }
    var map: [String: String] = [:]
    var index = 1
    /// The string starting at `index` (an opening quote), leaving `index` after its closing quote.
    func string() -> String? {
        guard index < count, utf8[index] == quote else { return nil }
        let start = index + 1
        var end = start
        while end < count, utf8[end] != quote {
            guard utf8[end] >= 0x20, utf8[end] != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < count else { return nil }
        index = end + 1
        return String(validating: UnsafeBufferPointer(rebasing: utf8[start..<end]), as: UTF8.self)
    }
    if count == 2 { return map }
    while true {
        guard let key = string(), index < count, utf8[index] == UInt8(ascii: ":"), map[key] == nil else { return nil }
        index += 1
        guard let value = string(), index < count else { return nil }
        map[key] = value
        if utf8[index] == UInt8(ascii: "}") { return index == count - 1 ? map : nil }
        guard utf8[index] == UInt8(ascii: ",") else { return nil }
        index += 1
    }
}
