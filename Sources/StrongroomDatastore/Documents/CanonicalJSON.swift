// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Writes a body as the datastore's canonical JSON: byte for byte what `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes for the same `[String: JSONValue]` (revision IDs hash these bytes, so every
/// replica — and every earlier version of this code — must produce the same ones), at a fraction of the cost.
///
/// - Keys sorted by their UTF-8 bytes, no whitespace.
/// - Strings: `"` and `\` escaped, `\b \t \n \f \r`, other control characters as `\u00xx`; everything else (`/`,
///   DEL, U+2028, non-ASCII) as its UTF-8 bytes.
/// - Numbers: whole numbers below 10¹⁵ in magnitude as integers (`-0` as `0`), others as Swift's shortest
///   round-trip form without a trailing `.0` (`1e+16`, `1.5e-07`).
///
/// `CanonicalJSONTests` compares it with `JSONEncoder` on thousands of random bodies.
enum CanonicalJSON {
    /// The canonical bytes of `object` (whose numbers are finite: ``BodyCodec`` checks that first).
    static func encode(_ object: [String: JSONValue]) -> [UInt8] {
        var output: [UInt8] = []
        // Room for the top level as written (nested values and escapes may still grow it): a 1 KiB body is then
        // written without the array growing three times on the way.
        var estimate = 2
        for (key, value) in object {
            estimate += key.utf8.count + 4
            if case .string(let text) = value { estimate += text.utf8.count + 2 } else { estimate += 16 }
        }
        output.reserveCapacity(min(estimate, 1 << 20))
        write(object: object, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): write(number: number, into: &output)
        case .string(let text): write(string: text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members): write(object: members, into: &output)
        }
    }

    private static func write(object: [String: JSONValue], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        let sorted = object.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (index, member) in sorted.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            write(string: member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            write(member.value, into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    private static func write(number: Double, into output: inout [UInt8]) {
        // As JSONValue encodes it: whole numbers below 10^15 as Int64, the rest as Double.
        if JSONValue.isWrittenAsInteger(number) {
            output.append(contentsOf: String(Int64(number)).utf8)
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(contentsOf: text.utf8)
    }

    private static func write(string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var start = 0
            while true {
                // Control characters, `"` and `\` are escaped; the runs between them are copied whole.
                let index = JSONPlainRun.end(in: raw, from: start)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                guard index < bytes.count else { break }
                start = index + 1
                let byte = bytes[index]
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(lowercaseHexDigit(byte >> 4))
                    output.append(lowercaseHexDigit(byte & 0x0F))
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
