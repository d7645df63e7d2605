// Strongroom — SPDX-License-Identifier: Apache-2.0

/// JSON text written by hand for the few hot shapes (signing's canonical form, the server's record answers),
/// where `JSONEncoder`'s set-up costs more than the text itself.
package enum JSONText {
    /// Appends `text` as a JSON string literal, escaped exactly as `JSON.stringify` (and Python's
    /// `json.dumps(ensure_ascii=False)`): only `"`, `\` and the C0 controls are escaped.
    ///
    /// Those are all ASCII, so the text between them is appended as whole UTF-8 runs (one scalar at a time cost
    /// more than a record signature on a record of a few KiB).
    package static func appendString(_ text: String, to output: inout String) {
        output += "\""
        let utf8 = text.utf8
        var run = utf8.startIndex
        var index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                utf8.formIndex(after: &index)
                continue
            }
            output += text[run..<index]
            switch byte {
            case UInt8(ascii: "\""): output += "\\\""
            case UInt8(ascii: "\\"): output += "\\\\"
            case 0x08: output += "\\b"
            case 0x0C: output += "\\f"
            case UInt8(ascii: "\n"): output += "\\n"
            case UInt8(ascii: "\r"): output += "\\r"
            case UInt8(ascii: "\t"): output += "\\t"
            default:
                let hex = String(byte, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            utf8.formIndex(after: &index)
            run = index
        }
        output += text[run..<index]
        output += "\""
    }

    /// Appends a JSON object of strings, keys in ascending order (so the same map always gives the same text).
    package static func appendStringMap(_ map: [String: String], to output: inout String) {
        output += "{"
        for (index, key) in map.keys.sorted().enumerated() {
            if index > 0 { output += "," }
            appendString(key, to: &output)
            output += ":"
            appendString(map[key] ?? "", to: &output)
        }
        output += "}"
    }

    /// Appends `value` as a JSON string, or `null` when it is nil.
    package static func appendOptionalString(_ value: String?, to output: inout String) {
        if let value { appendString(value, to: &output) } else { output += "null" }
    }
}
