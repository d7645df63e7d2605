// Strongroom — SPDX-License-Identifier: Apache-2.0

/// JSON text written by hand for the few hot shapes (signing's canonical form, the server's record answers),
/// where `JSONEncoder`'s set-up costs more than the text itself.
package enum JSONText {
    /// Appends `text` as a JSON string literal, escaped exactly as `JSON.stringify` (and Python's
    /// `json.dumps(ensure_ascii=False)`): only `"`, `\` and the C0 controls are escaped.
    ///
    /// Those are all ASCII, so the string's UTF-8 bytes are scanned for them and the text between them is appended
    /// as whole runs (one scalar at a time cost more than a record signature on a record of a few KiB).
    /// A string with nothing to escape — field ciphertext, IDs, most text — is appended whole after a check of
    /// eight bytes at a time (``isPlain(_:)``).
    package static func appendString(_ text: String, to output: inout String) {
        output += "\""
        var contiguous = text  // `withUTF8` makes a bridged string native first; offsets stay those of `text.utf8`
        contiguous.withUTF8 { bytes in
            if isPlain(UnsafeRawBufferPointer(bytes)) {
                output += text
                return
            }
            var run = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                appendRun(of: text, from: run, to: index, to: &output)
                appendEscape(byte, to: &output)
                run = index + 1
            }
            appendRun(of: text, from: run, to: bytes.count, to: &output)
        }
        output += "\""
    }

    /// Whether `text` holds no byte JSON escapes inside a string — no control character (below 0x20), no `"` and
    /// no backslash — checked eight bytes at a time: in a word, `(x - 0x20…20) & ~x` has a byte's high bit set for
    /// some byte below 0x20 exactly when there is one, and the same over `x ^ 0x22…22` (or `x ^ 0x5C…5C`) with
    /// `0x01…01` for a byte equal to 0x22 (or 0x5C).
    package static func isPlain(_ text: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        var found: UInt64 = 0
        while text.count - offset >= 8 {
            let word = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            found |=
                ((word &- ones &* 0x20) & ~word) | ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
            offset += 8
        }
        var refused = found & highBits != 0
        for byte in text[offset...] { refused = refused || byte < 0x20 || byte == 0x22 || byte == 0x5C }
        return !refused
    }

    /// Appends the UTF-8 bytes `start..<end` of `text`; both offsets sit next to ASCII bytes (or the ends).
    private static func appendRun(of text: String, from start: Int, to end: Int, to output: inout String) {
        guard start < end else { return }
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: start)
        let upper = utf8.index(lower, offsetBy: end - start)
        output += text[lower..<upper]
    }

    private static func appendEscape(_ byte: UInt8, to output: inout String) {
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
    }

    /// Appends a JSON object of strings, keys in ascending order (so the same map always gives the same text).
    package static func appendStringMap(_ map: [String: String], to output: inout String) {
        output += "{"
        for (index, member) in map.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output += "," }
            appendString(member.key, to: &output)
            output += ":"
            appendString(member.value, to: &output)
        }
        output += "}"
    }

    /// Appends `value` as a JSON string, or `null` when it is nil.
    package static func appendOptionalString(_ value: String?, to output: inout String) {
        if let value { appendString(value, to: &output) } else { output += "null" }
    }
}
