// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The one serializer behind ``Signable/canonicalSerialization``; signing and verifying both call it.
enum CanonicalSerializer {
    static func write(_ value: SignableValue, to output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .bool(let flag):
            output += flag ? "true" : "false"
        case .integer(let number):
            output += String(number)
        case .string(let text):
            writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            let keys = members.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output += "," }
                writeString(key, to: &output)
                output += ":"
                if let member = members[key] { write(member, to: &output) }
            }
            output += "}"
        }
    }

    /// A JSON string literal escaped exactly as `JSON.stringify` (and Python's `json.dumps(ensure_ascii=False)`).
    ///
    /// Only `"`, `\` and the C0 controls are escaped — all ASCII — so the text between them is appended as whole
    /// UTF-8 runs (one scalar at a time cost more than the signature itself on a record of a few KiB).
    static func writeString(_ text: String, to output: inout String) {
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
}
